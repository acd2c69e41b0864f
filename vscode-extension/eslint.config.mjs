// ESLint (flat config): the recommended TypeScript rules, type-aware, over src/ and test/.
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['out/**', 'dist/**', 'node_modules/**', 'scripts/**', 'test/e2e/**', 'eslint.config.mjs'] },
    ...tseslint.configs.recommendedTypeChecked,
    {
        languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
        rules: {
            'curly': 'error',
            'eqeqeq': 'error',
            '@typescript-eslint/no-floating-promises': 'error',
        },
    },
    // node:test's describe() and it() return promises that the runner itself awaits.
    { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-floating-promises': 'off' } },
);

"""The language server (pygls): features, each in its own module, translating `ide` results.

The server never runs the emulator or the assembler itself (`tests/test_architecture.py`
checks that it imports neither `emu` nor `asm`): it asks `ide` for plain data and converts it with
`proto`, the one conversion module (positions through pygls' codec, ranges, locations, edits,
diagnostics, commands; code lenses, which `ide.lenses` decides and lays out, are converted by
`code_lens.to_code_lens`). What the client can do is resolved once at `initialize`
into `capabilities.ClientCapabilities` (`server.client`). A request handler receives the
resolved state of the document it is about (`handlers.request`), never looks it up. The
document's version lives on its `Document`; each edit has one debounce (`sync.Debounce`).

Writing a feature module (esbonio's `LanguageFeature`, in short)::

    class Profile(Feature):                       # lifecycle hooks and contributions, as needed
        def document_settled(self, doc): ...      # after the one debounce of each edit
        def document_closed(self, uri): ...
        def code_lenses(self, doc): return [...]  # `ide.lenses.Lens` values, shown by `code_lens`
        def hover(self, doc, line, target): ...   # markdown above the hover
        def diagnostics(self, doc): return [...]  # published with the analysis'

    def setup(server):
        server.add_feature(Profile(server))
        @command(server, "wave-lsp.profile")      # workspace/executeCommand
        async def profile(*args): ...
        @request(server, METHOD, options)         # a request about one document gets
        def answer(doc, params): ...              # `doc`, its resolved DocumentState

and add the module's name to `FEATURES` in `server.py` (one line). A feature that runs emulator
jobs (runs, profiles, kernel tests, ...) subclasses `job_feature.JobFeature` instead: it says
what its record is (`kind`), what re-runs after an edit (`live_work`), what decides a job
(`job_key`) and how to run it (`run`); the lifecycle is the base's. Another feature's object is
reached by type: `server.get_feature(RunService)`.

Lifecycle hooks (`Feature.initialize`, `settings_changed`, `document_edited`,
`document_settled`, `results_changed`, `document_closed`, `shutdown`) are called by
`server.broadcast`, each feature isolated from the others' failures; contributions
(`code_lenses`, `hover`, `inlay_hints`, `completions`, `diagnostics`, `quick_fixes`,
`results_generation`) are gathered by `server.contributions` in `FEATURES` order.
"""

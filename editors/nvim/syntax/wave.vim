" Vim syntax file for WAVE GPU assembly (.wave)
" GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.vim_files`: do not edit.

if exists("b:current_syntax")
  finish
endif

syn case match
syn iskeyword @,48-57,_,192-255

" Instructions, one group per instruction class.
syn keyword waveInteger iadd isub imul imul_hi imad idiv imod ineg iabs imin imax iclamp
syn keyword waveFloat fadd fsub fmul fma fdiv fneg fabs fmin fmax fclamp fsqrt frsqrt frcp ffloor
syn keyword waveFloat fceil fround ftrunc ffract fsat fsin fcos fexp2 flog2
syn keyword waveF16 hadd hsub hmul hma hadd2 hmul2 hma2
syn keyword waveBf16 badd bsub bmul bma badd2 bmul2 bma2
syn keyword waveF64 dadd dsub dmul dma ddiv dsqrt
syn keyword waveBitwise and or xor not shl shr sar bitcount bitfind bitrev bfe bfi
syn keyword waveCompare icmp_eq icmp_ne icmp_lt icmp_le icmp_gt icmp_ge ucmp_lt ucmp_le fcmp_eq
syn keyword waveCompare fcmp_ne fcmp_lt fcmp_le fcmp_gt fcmp_ord fcmp_unord select
syn keyword waveConvert cvt_f32_i32 cvt_f32_u32 cvt_i32_f32 cvt_u32_f32 cvt_f32_f16 cvt_f16_f32
syn keyword waveConvert cvt_f32_f64 cvt_f64_f32 cvt_f32_bf16 cvt_bf16_f32
syn keyword waveLocalMemory local_load_u8 local_load_u16 local_load_u32 local_load_u64
syn keyword waveLocalMemory local_store_u8 local_store_u16 local_store_u32 local_store_u64
syn keyword waveDeviceMemory device_load_u8 device_load_u16 device_load_u32 device_load_u64
syn keyword waveDeviceMemory device_load_u128 device_store_u8 device_store_u16 device_store_u32
syn keyword waveDeviceMemory device_store_u64 device_store_u128
syn keyword waveAtomic local_atomic_add local_atomic_sub local_atomic_min local_atomic_max
syn keyword waveAtomic local_atomic_and local_atomic_or local_atomic_xor local_atomic_exchange
syn keyword waveAtomic local_atomic_cas atomic_add atomic_sub atomic_min atomic_max atomic_and
syn keyword waveAtomic atomic_or atomic_xor atomic_exchange atomic_cas
syn keyword waveWave wave_shuffle wave_shuffle_up wave_shuffle_down wave_shuffle_xor wave_broadcast
syn keyword waveWave wave_ballot wave_any wave_all wave_prefix_sum wave_reduce_add wave_reduce_min
syn keyword waveWave wave_reduce_max
syn keyword waveControl if else endif loop break continue endloop call return halt
syn keyword waveSync barrier fence_acquire fence_release fence_acq_rel wait
syn keyword waveMma mma_load_a mma_load_b mma_store_c mma_compute
syn keyword waveMisc nop mov mov_imm mov_sr

" Operands.
syn keyword waveSpecialRegister sr_thread_id_x sr_thread_id_y sr_thread_id_z sr_wave_id sr_lane_id
syn keyword waveSpecialRegister sr_workgroup_id_x sr_workgroup_id_y sr_workgroup_id_z
syn keyword waveSpecialRegister sr_workgroup_size_x sr_workgroup_size_y sr_workgroup_size_z
syn keyword waveSpecialRegister sr_grid_size_x sr_grid_size_y sr_grid_size_z sr_wave_width
syn keyword waveSpecialRegister sr_num_waves sr_mma_supported sr_mma_m sr_mma_n sr_mma_k
syn match waveRegister "\<r\d\+\%(\.\h\w*\)\=\>"
syn match wavePredicate "\<p\d\+\>"
syn match waveNumber "\%(\w\)\@<![-+]\=\<\d[0-9_]*\>"
syn match waveNumber "\%(\w\)\@<![-+]\=\<0[xX][0-9A-Fa-f_]\+\>"
syn match waveFloatLiteral "\%(\w\)\@<![-+]\=\<\d[0-9_]*\.[0-9_]*\%([eE][-+]\=\d\+\)\="
syn match waveFloatLiteral "\%(\w\)\@<![-+]\=\<\d[0-9_]*[eE][-+]\=\d\+\>"
syn match waveScope "\%(\w\)\@<!\.\%(wave\|workgroup\|device\|system\)\>"
syn match waveCacheHint "\%(\w\)\@<!\.\%(cached\|uncached\|streaming\)\>"
syn match waveLegacySpecial "%\h[[:alnum:]_.]*"
syn match waveGuard "@\s*!\=\s*p\d\+\>"

" Directives, kernels and labels.
syn match waveDirective "\%(\w\)\@<!\.\%(kernel\|end\|registers\|local_memory\|workgroup_size\)\>"
syn match waveKernelName "\%(\.kernel\s\+\)\@<=\h\w*"
syn match waveLabel "^\s*\zs\h\w*\ze\s*:"

" Comments: `;` or `#` to the end of the line; wave-lsp reads `; wave-lsp ...` ones
" (`wave-lsp: ignore[...]`, and `wave-lsp VERB:` as `run:` and `expect:`).
syn keyword waveTodo contained TODO FIXME XXX NOTE
syn match waveToolComment "\<wave-lsp\%(\s*:\|\s\+\l\+\s*:\)" contained
syn match waveComment "[;#].*$" contains=waveTodo,waveToolComment,@Spell

hi def link waveInteger waveInstruction
hi def link waveFloat waveInstruction
hi def link waveF16 waveInstruction
hi def link waveBf16 waveInstruction
hi def link waveF64 waveInstruction
hi def link waveBitwise waveInstruction
hi def link waveCompare waveInstruction
hi def link waveConvert waveInstruction
hi def link waveLocalMemory waveMemoryAccess
hi def link waveDeviceMemory waveMemoryAccess
hi def link waveAtomic waveMemoryAccess
hi def link waveWave waveInstruction
hi def link waveControl waveControlFlow
hi def link waveSync waveSynchronization
hi def link waveMma waveInstruction
hi def link waveMisc waveInstruction
hi def link waveInstruction Statement
hi def link waveMemoryAccess Function
hi def link waveControlFlow Conditional
hi def link waveSynchronization Exception
hi def link waveComment Comment
hi def link waveTodo Todo
hi def link waveToolComment SpecialComment
hi def link waveDirective PreProc
hi def link waveKernelName Function
hi def link waveLabel Label
hi def link waveGuard PreCondit
hi def link waveRegister Identifier
hi def link wavePredicate Identifier
hi def link waveSpecialRegister Special
hi def link waveScope StorageClass
hi def link waveCacheHint StorageClass
hi def link waveNumber Number
hi def link waveFloatLiteral Float
hi def link waveLegacySpecial Error

let b:current_syntax = "wave"

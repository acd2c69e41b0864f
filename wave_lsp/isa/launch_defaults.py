"""What upstream `wave-emu` gives a launch that neither the kernel nor a flag sizes (reference
§6, its flag table). No imports: the emulator reads it without loading the vendor backends."""

# wave-emu's local memory size when neither `.local_memory` nor --local-memory gives one
# (reference §6); `wave-lsp emit` declares it for a kernel that uses local memory without the
# directive, so the code runs as `wave-lsp run` runs it.
DEFAULT_LOCAL_MEMORY = 16384

"""What upstream `wave-emu` gives a launch that neither the kernel nor a flag sizes (reference
§6, its flag table), and the two meanings of a data race a run can check. No imports: the
emulator and `wave-lsp run --help` read it without loading the vendor backends."""

# wave-emu's local memory size when neither `.local_memory` nor --local-memory gives one
# (reference §6); `wave-lsp emit` declares it for a kernel that uses local memory without the
# directive, so the code runs as `wave-lsp run` runs it.
DEFAULT_LOCAL_MEMORY = 16384

# What a run's data-race check between the waves of a workgroup reports (`--racecheck`), the
# default first. "benign": as compute-sanitizer's racecheck (CUDA Compute Sanitizer docs,
# "Racecheck Tool": it checks shared-memory loads and stores, not atomics, and reports no hazard
# where every thread writes the same value); "strict": spec v0.1 §9.3 and `wave-lsp verify` --
# two unordered accesses to one byte, at least one a write, not both atomic, whatever the values.
RACECHECKS = ("benign", "strict")

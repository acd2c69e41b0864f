"""The emulator's limits on a launch (spec v0.2 §7.1 gives minimums; these are this
implementation's values). No imports: the launch-flag parser checks values against them
without loading numpy."""

MAX_WORKGROUP_THREADS = 1024         # threads per workgroup (spec minimum 256)
MAX_WAVE_WIDTH = 64                  # lanes per wave
MAX_GRID_WORKGROUPS = 1 << 32        # workgroup ids are 32-bit special registers
MAX_DEVICE_MEMORY = 1 << 32          # 32-bit addresses
MAX_LOCAL_MEMORY = 1 << 30           # bytes per workgroup

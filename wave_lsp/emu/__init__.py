"""The SIMT emulator and its run reports."""

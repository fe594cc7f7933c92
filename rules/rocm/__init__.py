"""ADV8xx: ROCm (allocator configuration, hip-guarded branches, extension builds, amdsmi)."""

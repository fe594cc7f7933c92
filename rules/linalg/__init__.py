"""ADV2xx: linear algebra (the MAGMA backend, eigh on cuSOLVER, legacy linalg entry points)."""

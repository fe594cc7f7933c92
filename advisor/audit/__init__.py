"""Many repositories at once, on a local process pool or a Dask cluster."""

"""Sweeps and fault campaigns: many robot runs as one Dask job (`servobus sweep`)."""

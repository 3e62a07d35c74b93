"""The host program (the thesis' CerveauX): supervision, position controllers, trajectories."""

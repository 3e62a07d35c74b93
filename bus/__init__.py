"""CAN: message schema, bit-level frame model, simulated bus, python-can backends, load, logs."""

"""The hardware around the firmware: H-bridge, motor and shaft, analog front end, ADC, sensors."""

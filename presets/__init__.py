"""Data in one place: servo plant presets, board hardware, firmware constants derived from them."""

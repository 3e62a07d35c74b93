def main() -> None:
    """Placeholder entry point replaced below."""

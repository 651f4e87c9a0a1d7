def files() -> dict[str, str]:
    return {}

"""Seeded, vectorised simulations of Kafka clients and brokers that emit columnar traces."""

__all__: list[str] = []

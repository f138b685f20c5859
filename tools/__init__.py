"""The project's tools, not shipped in the wheel: scripts ``make`` runs (``warm.py``,
``build_jvm_archive.py``, ``kafka_config_keys.py``), the lesson sources (``lessons/``, jupytext
files paired with ``notebooks/``) and the oracles (:mod:`tools.oracles`)."""

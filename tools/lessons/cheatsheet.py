# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Cheat sheet: which limit applies, by Kafka version
#
# One page for the whole course ([the tour](00_tour.ipynb) and lessons
# [1](01_fetch_size_limit.ipynb) to [9](09_other_clients.ipynb); terms in the [glossary](glossary.ipynb)).
# Every table below is built by the package (`kipviz.apps.cheatsheet`), from the same declarations the
# simulations use, so it cannot drift from them. Sizes are in MiB (1,048,576 bytes) with the byte
# value where Kafka's setting is in bytes; rates are in MB/s, and amounts moved at a rate in MB.
#
# ## Which limit applies when

# %%
import pandas as pd

from kipviz.apps import cheatsheet

pd.set_option("display.max_colwidth", None)
cheatsheet.formulas()

# %% [markdown]
# ## What changed in which release (consumer, tiered storage, share groups, the broker's pool)
#
# `ConsumerScenario(kafka_version=...)`, `ShareGroupScenario(kafka_version=...)`,
# `BrokerScenario(kafka_version=...)`, `TieredFetchScenario(kafka_version=...)`, the dashboards'
# version control and `kipviz run --kafka-version` look these up; the default is the newest release
# the model knows. `kafka_version` is MAJOR.MINOR and follows each minor's newest patch (KAFKA-20302's
# fix is in 3.9.3 and 4.2.1, so 3.9 and 4.2 have it).

# %%
cheatsheet.version_table()

# %% [markdown]
# ## The Kafka settings kipviz models: defaults and rules
#
# `ConsumerConfig.from_properties(...)` / `BrokerConfig.from_properties(...)` read them from your
# `.properties` files and refuse a value Kafka would refuse, naming the setting and the rule.

# %%
cheatsheet.defaults_table()

# %% [markdown]
# ## Your client, not only Java's: each client's memory rule
#
# `ConsumerScenario(client=..., client_settings=..., compression_ratio=...)` simulates each client
# with the same broker and workload, and `kipviz.kafka.clients.client_memory_bounds` gives its bound
# (lesson 9). The rule column is each client's module docstring in `kipviz.kafka.clients`; the bound
# is for 1,000 partitions on 3 brokers, lagging, at the client's defaults, uncompressed.

# %%
cheatsheet.client_table()

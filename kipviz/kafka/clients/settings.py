"""Each client's fetch settings, declared once by the client's own names, and readers for a
user's config written the client's way.

Sources, at the tags read for issue 31 (``/work/helpers/RESEARCH-31.md``):

* librdkafka v2.15.0, ``src/rdkafka_conf.c`` (the ``rd_kafka_properties`` table: default and
  ``vmin..vmax``; out of range is "Configuration property ... is outside allowed range",
  conf.c:2324-2327). The byte gate is ``queued.max.messages.kbytes x 1000`` (rdkafka.c:2717-2718)
  while the ``fetch.max.bytes`` clamp uses ``x 1024`` (conf.c:4554).
* franz-go v1.21.5, ``pkg/kgo/config.go`` (option functions and ``validate``).
* kafka-python 3.0.11, ``kafka/consumer/group.py`` (``DEFAULT_CONFIG``; no range checks except
  ``max_poll_records`` > 0, fetcher.py:565-567).

Where a client checks no range and a value would mean nothing (a negative byte count), ``note``
says what kipviz asks instead. Errors have kipviz's one shape, ``<python_name> (<key>) must be
<rule>: <value>``:

>>> LIBRDKAFKA["queued.max.messages.kbytes"].default, FRANZ_GO["FetchMaxBytes"].default
(65536, 52428800)
>>> read_client_config("librdkafka", {"queued.min.messages": 0})
Traceback (most recent call last):
ValueError: queued_min_messages (queued.min.messages) must be an integer >= 1 and <= 10000000: 0
"""

from __future__ import annotations

import ast
import os
import warnings
from collections.abc import Mapping
from pathlib import Path

import javaproperties

from kipviz.kafka.config.declarations import Setting, SettingTable
from kipviz.kafka.config.fields import check_setting

__all__ = ["CLIENTS", "FRANZ_GO", "KAFKA_PYTHON", "LIBRDKAFKA", "NOT_MEMORY", "parse_kgo_options",
           "read_client_config"]

_NO_RANGE = "the client checks no range; kipviz asks for a positive byte count"


def _rd(key: str, default: int, at_least: int, at_most: int, unit: str, rule: str,
        source: str, note: str = "") -> Setting:
    return Setting("librdkafka", key, key.replace(".", "_"), "int", default, at_least, at_most,
                   unit, rule, f"librdkafka v2.15.0 src/rdkafka_conf.c:{source}", note)


LIBRDKAFKA = SettingTable("librdkafka", tuple(_rd(*row) for row in (
    ("fetch.max.bytes", 52428800, 0, 2147483135, "bytes",
     "request MaxBytes (KIP-74); when unset, max(min(52428800, queued.max.messages.kbytes x "
     "1024), message.max.bytes) (v1.5.0+); when set, >= message.max.bytes",
     "1489-1503, 4546-4554"),
    ("fetch.message.max.bytes", 1048576, 1, 1000000000, "bytes",
     "each partition's MaxBytes in the request (alias max.partition.fetch.bytes)", "1478-1488"),
    ("queued.max.messages.kbytes", 65536, 1, 2097151, "kbytes",
     "no partition is fetched while the one consumer queue holds >= this x 1000 value bytes "
     "(fetcher.c:3764-3779, rdkafka.c:2717-2718)", "1450-1461"),
    ("queued.min.messages", 100000, 1, 10000000, "messages",
     "no partition is fetched while the one consumer queue holds >= this many messages",
     "1444-1449"),
    ("fetch.queue.backoff.ms", 1000, 0, 300000, "ms",
     "how long a partition waits after a queue gate is hit (v2.2.0+)", "1467-1477"),
    ("receive.message.max.bytes", 100000000, 1000, 2147483647, "bytes",
     "the largest response read; raised to fetch.max.bytes + 512 when unset, an error when "
     "set below it", "450-459, 4563-4573"),
    ("message.max.bytes", 1000000, 1000, 1000000000, "bytes",
     "the floor of fetch.max.bytes on the consumer side", "436-443"),
    ("fetch.min.bytes", 1, 1, 100000000, "bytes", "request MinBytes (a consumer: 1..1e8)",
     "1504-1510, 4475-4488"),
    ("fetch.wait.max.ms", 500, 0, 300000, "ms", "request MaxWaitTime", "1462-1466"),
)))
"""librdkafka's consumer fetch settings (confluent-kafka's config dict keys)."""

LIBRDKAFKA_ALIASES = {"max.partition.fetch.bytes": "fetch.message.max.bytes"}


def _go(key: str, name: str, default: int, at_least: int, at_most: int, unit: str, rule: str,
        source: str, note: str = "") -> Setting:
    return Setting("franz-go", key, name, "int", default, at_least, at_most, unit, rule,
                   f"franz-go v1.21.5 pkg/kgo/config.go:{source}", note)


FRANZ_GO = SettingTable("franz-go", tuple(_go(*row) for row in (
    ("FetchMaxBytes", "fetch_max_bytes", 52428800, 1, 2147483647, "bytes",
     "request MaxBytes; BrokerMaxReadBytes must be >= it", "331", _NO_RANGE),
    ("FetchMaxPartitionBytes", "fetch_max_partition_bytes", 1048576, 1, 2147483647, "bytes",
     "each partition's MaxBytes, clamped to FetchMaxBytes", "235-237", _NO_RANGE),
    ("MaxConcurrentFetches", "max_concurrent_fetches", -1, -1, 2147483647, "fetches",
     "fetches buffered or in flight: -1 one per broker, 0 only while polling (v1.21.0+)", "334"),
    ("BrokerMaxReadBytes", "broker_max_read_bytes", 104857600, 1024, 1 << 30, "bytes",
     "the largest response read; >= FetchMaxBytes", "315-316, 331"),
    ("FetchMinBytes", "fetch_min_bytes", 1, 1, 2147483647, "bytes", "request MinBytes", "",
     "the client checks no range; kipviz asks for >= 1"),
)))
"""franz-go's fetch options (``kgo.Name(value)``), by their Go names."""


def _py(key: str, default: int, at_least: int, unit: str, rule: str, source: str,
        note: str = _NO_RANGE) -> Setting:
    return Setting("kafka-python", key, key, "int", default, at_least, 2147483647, unit, rule,
                   f"kafka-python 3.0.11 kafka/consumer/{source}", note)


KAFKA_PYTHON = SettingTable("kafka-python", tuple(_py(*row) for row in (
    ("fetch_max_bytes", 52428800, 1, "bytes", "request max_bytes", "group.py:310"),
    ("max_partition_fetch_bytes", 1048576, 1, "bytes", "each partition's max_bytes",
     "group.py:311"),
    ("max_poll_records", 500, 1, "records", "records one poll() returns",
     "group.py:327, fetcher.py:565-567", ""),
    ("fetch_min_bytes", 1, 1, "bytes", "request min_bytes", "group.py"),
    ("receive_message_max_bytes", 100000000, 1, "bytes",
     "the largest frame read, raised to fetch_max_bytes + max_partition_fetch_bytes (3.0.1+)",
     "group.py:333, 395-406"),
)))
"""kafka-python's fetch keyword arguments (aiokafka takes the same names)."""

CLIENTS: dict[str, SettingTable] = {"librdkafka": LIBRDKAFKA, "franz-go": FRANZ_GO,
                                    "kafka-python": KAFKA_PYTHON}
"""Each client's settings table, by the client name ``client=`` takes."""

NOT_MEMORY: dict[str, frozenset[str]] = {
    "librdkafka": frozenset({
        "bootstrap.servers", "group.id", "client.id", "auto.offset.reset", "enable.auto.commit",
        "auto.commit.interval.ms", "session.timeout.ms", "heartbeat.interval.ms",
        "max.poll.interval.ms", "security.protocol", "sasl.mechanisms", "sasl.username",
        "sasl.password", "isolation.level", "partition.assignment.strategy",
        "group.protocol", "enable.partition.eof", "fetch.error.backoff.ms", "debug",
        "statistics.interval.ms", "client.rack", "group.instance.id"}),
    "franz-go": frozenset({
        "SeedBrokers", "ConsumerGroup", "ConsumeTopics", "ClientID", "FetchMaxWait",
        "DisableFetchSessions", "FetchIsolationLevel", "ConsumeResetOffset", "Balancers",
        "SessionTimeout", "HeartbeatInterval", "DisableAutoCommit", "AutoCommitInterval",
        "Rack", "InstanceID", "BlockRebalanceOnPoll", "SASL", "DialTLSConfig"}),
    "kafka-python": frozenset({
        "bootstrap_servers", "group_id", "client_id", "auto_offset_reset", "enable_auto_commit",
        "auto_commit_interval_ms", "session_timeout_ms", "heartbeat_interval_ms",
        "max_poll_interval_ms", "security_protocol", "sasl_mechanism", "sasl_plain_username",
        "sasl_plain_password", "isolation_level", "value_deserializer", "key_deserializer",
        "fetch_max_wait_ms", "request_timeout_ms", "consumer_timeout_ms", "api_version",
        "enable_incremental_fetch_sessions", "client_rack", "group_instance_id"}),
}
"""Names each client takes that do not change its memory bound: reading one warns, not fails."""


def _table(client: str) -> SettingTable:
    if client not in CLIENTS:
        raise ValueError(f"client must be one of {', '.join(CLIENTS)}: {client!r}")
    return CLIENTS[client]


def _as_int(raw: object) -> object:
    """A ``.properties`` value is text: ``"65536"`` is read as the integer it spells."""
    if isinstance(raw, str):
        try:
            return int(raw.strip(), 0)
        except ValueError:
            return raw
    return raw


def read_client_config(client: str, source: Mapping[str, object] | str | os.PathLike[str],
                       ) -> dict[str, int]:
    """The memory settings a user's own config sets, by the client's names, each checked by its
    declared range: ``client="librdkafka"`` takes confluent-kafka's config dict (dotted keys; the
    alias ``max.partition.fetch.bytes`` is read as ``fetch.message.max.bytes``) or a path or text
    of a ``.properties``-style file of them; ``"franz-go"`` a mapping of Go option names or the
    text of ``kgo.`` option calls (:func:`parse_kgo_options`); ``"kafka-python"`` the keyword
    arguments as a dict. A name the client takes that does not change memory
    (:data:`NOT_MEMORY`) warns and is left out; any other unknown name is a ValueError listing
    the known ones.

    >>> read_client_config("franz-go", "kgo.FetchMaxPartitionBytes(10 << 20)")
    {'FetchMaxPartitionBytes': 10485760}
    """
    table = _table(client)
    if isinstance(source, Mapping):
        items: Mapping[str, object] = source
    elif client == "franz-go":
        items = parse_kgo_options(str(source))
    else:
        text = str(source)
        path = Path(text)
        if "\n" not in text and "=" not in text and path.is_file():
            text = path.read_text()
        items = javaproperties.loads(text)
    values: dict[str, int] = {}
    for raw_key, raw in items.items():
        key = LIBRDKAFKA_ALIASES.get(raw_key, raw_key) if client == "librdkafka" else raw_key
        if key in table:
            setting = table[key]
            values[key] = check_setting(setting.name, _as_int(raw), setting)
        elif key in NOT_MEMORY[client]:
            warnings.warn(f"{client} setting {key!r} does not change the memory bound; "
                          "kipviz leaves it out", stacklevel=2)
        else:
            raise ValueError(f"{client} setting {key!r} is not one kipviz reads; it reads "
                             f"{', '.join(sorted(table))}")
    return values


def _go_int(option: str, node: ast.expr) -> int:
    """An integer literal, or ``<<``, ``*``, ``+`` and unary ``-`` of them; nothing else."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_go_int(option, node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift | ast.Mult | ast.Add):
        left, right = _go_int(option, node.left), _go_int(option, node.right)
        if isinstance(node.op, ast.LShift):
            if not 0 <= right < 63:
                raise ValueError(f"{option} must be an integer expression: shift by {right}")
            return left << right
        return left * right if isinstance(node.op, ast.Mult) else left + right
    raise ValueError(f"{option} must be an integer expression of literals, <<, * and +: "
                     f"{ast.unparse(node)!r}")


def parse_kgo_options(text: str) -> dict[str, int | None]:
    """franz-go options written as Go calls, comma- or line-separated: ``kgo.FetchMaxBytes(50 <<
    20)``, ``kgo.MaxConcurrentFetches(3)``; the ``kgo.`` prefix is optional. Values may be
    integer literals combined with ``<<``, ``*`` and ``+``; anything else (a variable,
    ``time.Second``, a call) is a ValueError naming the option. An option with no argument
    (``kgo.DisableFetchSessions()``) maps to ``None``.

    >>> parse_kgo_options("kgo.FetchMaxBytes(50 << 20),\\n kgo.MaxConcurrentFetches(-1)")
    {'FetchMaxBytes': 52428800, 'MaxConcurrentFetches': -1}
    """
    lines = [line.split("//", 1)[0].strip().rstrip(",") for line in text.splitlines()]
    source = ", ".join(line for line in lines if line)
    try:
        tree = ast.parse(f"({source},)", mode="eval")
    except SyntaxError as e:
        raise ValueError(f"franz-go options must be kgo.Name(value) calls: {text!r}") from e
    assert isinstance(tree.body, ast.Tuple)
    options: dict[str, int | None] = {}
    for node in tree.body.elts:
        if not isinstance(node, ast.Call) or node.keywords:
            raise ValueError(f"a franz-go option must be a kgo.Name(value) call: "
                             f"{ast.unparse(node)!r}")
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == "kgo":
            name = func.attr
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            raise ValueError(f"a franz-go option must be a kgo.Name(value) call: "
                             f"{ast.unparse(node)!r}")
        if name in FRANZ_GO:
            if len(node.args) != 1:
                raise ValueError(f"{name} must take one integer: {ast.unparse(node)!r}")
            options[name] = _go_int(name, node.args[0])
        else:
            options[name] = None
    return options

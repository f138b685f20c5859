"""One validation path and one error shape for every setting of every scenario kind.

Every dataclass field of every registered scenario kind (and of the workload, the tour's cluster,
the Kafka config classes and the Streams memory instance) is declared with a rule
(:mod:`kipviz.kafka.config.fields`). For each field, bad values are generated from its declared
rule (a wrong type, a value out of its range or its Java type's, nan and infinities for a number)
and each must be refused by a ``ValueError`` in the one shape,
``<python_name> (<kafka.key>) must be <rule>: <value>``, word for word what the rule itself says:
so no other check of the same field, in another shape, runs first.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import pytest

from kipviz.kafka.config.checks import JAVA_RANGES
from kipviz.kafka.config.fields import FieldRule, field_rule
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.streams.memory import StreamsInstance
from kipviz.scenarios import SCENARIOS
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.share_group.scenario import ShareGroupScenario
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario
from kipviz.scenarios.tour.scenario import ClusterScenario
from kipviz.scenarios.workload import Workload

CLASSES: dict[str, type] = {
    **{kind: SCENARIOS[kind].scenario for kind in SCENARIOS},
    "cluster": ClusterScenario, "workload": Workload, "ConsumerConfig": ConsumerConfig,
    "BrokerConfig": BrokerConfig, "StreamsInstance": StreamsInstance,
}
FIELDS = [(name, f.name) for name, cls in CLASSES.items() for f in dataclasses.fields(cls)]


def _field(cls_name: str, name: str) -> dataclasses.Field[Any]:
    return next(f for f in dataclasses.fields(CLASSES[cls_name]) if f.name == name)


def _low(rule: FieldRule) -> float | None:
    """The lowest value the rule accepts (an integer rule's ``above`` is ``above + 1``)."""
    if rule.above is not None:
        return rule.above + 1 if rule.kind == "int" else rule.above
    return rule.at_least


def good_value(rule: FieldRule) -> Any:
    """A value the rule accepts (for the parts of a pair beside the bad one)."""
    if rule.optional:
        return None
    low = _low(rule)
    if rule.kind == "int":
        return 0 if low is None else int(low)
    if rule.kind == "text":
        return "a"
    assert rule.kind == "number", rule
    return 0.0 if low is None else float(low) + 1.0


def bad_values(rule: FieldRule) -> list[tuple[Any, Any]]:
    """``(value, shown)`` pairs the rule refuses, generated from it: ``shown`` is what the
    message must show (the value, or the bad item of a tuple)."""
    values: list[Any] = [] if rule.optional else [None]
    if rule.kind in ("int", "number"):
        values += ["5", True]
        low = _low(rule)
        if rule.kind == "int":
            values.append(1.5)
            if low is not None:
                values.append(int(low) - 1)
            if rule.at_most is not None:
                values.append(int(rule.at_most) + 1)
            java_low, java_high, _ = JAVA_RANGES[rule.java or "int64"]
            values += [java_low - 1, java_high + 1]
        else:
            values += [math.nan, math.inf, -math.inf]
            if low is not None:
                values.append(low if rule.above is not None else low - 1)
            if rule.at_most is not None:
                values.append(rule.at_most + 0.5)
            if rule.java is not None:
                values.append(float(JAVA_RANGES[rule.java][1]) * 2)
    elif rule.kind == "bool":
        values += ["no", 1]
    elif rule.kind == "choice":
        values += ["no such option", 3.5]
    elif rule.kind == "text":
        values += [5, ""]
    elif rule.kind == "nested":
        values += [5]
    else:
        assert rule.kind == "items", rule
        pairs = [(value, value) for value in [*values, -1, 5, "ab"]]
        if rule.non_empty:
            pairs.append(((), ()))
        if isinstance(rule.of, FieldRule):
            pairs += [((item,), item) for item, _ in bad_values(rule.of)]
        else:
            parts = rule.of
            pairs.append(((5,), 5))  # not a pair
            for i, (_, part) in enumerate(parts):
                for item, shown in bad_values(part):
                    pair = tuple(item if j == i else good_value(other)
                                 for j, (_, other) in enumerate(parts))
                    pairs.append(((pair,), shown))
        return pairs
    return [(value, value) for value in values]


CASES = [(cls_name, name, value, shown)
         for cls_name, name in FIELDS
         if (found := field_rule(_field(cls_name, name))) is not None
         for value, shown in bad_values(found[1])]


@pytest.mark.parametrize(("cls_name", "name"), FIELDS, ids=[f"{c}.{n}" for c, n in FIELDS])
def test_every_field_of_every_kind_is_declared_with_a_rule(cls_name, name):
    """No field is checked by hand alone: each has a declared rule (kafka_field, knob, flag,
    choice, text, nested or items) that check_declared runs."""
    assert field_rule(_field(cls_name, name)) is not None, f"{cls_name}.{name} has no rule"


@pytest.mark.parametrize(("cls_name", "name", "value", "shown"), CASES,
                         ids=[f"{c}.{n}={v!r}" for c, n, v, _ in CASES])
def test_a_bad_value_of_any_field_is_one_valueerror_naming_the_field_and_the_value(
        cls_name, name, value, shown):
    """A wrong type, a value out of range (the declared one or the Java type's), nan or an
    infinity: a ValueError that starts with the field's name, says ``must be`` and shows the
    value, word for word the declared rule's message (no other check answers first)."""
    label, rule = field_rule(_field(cls_name, name))  # type: ignore[misc]
    with pytest.raises(ValueError) as expected:
        rule.check(label, value)
    with pytest.raises(ValueError) as raised:
        CLASSES[cls_name](**{name: value})
    message = str(raised.value)
    assert message.startswith(name), message
    assert " must be " in message, message
    assert message.endswith((f": {shown!r}", f": {shown}")), message
    assert message == str(expected.value)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: ConsumerConfig(fetch_min_bytes="5"),
     "fetch_min_bytes (fetch.min.bytes) must be an integer: '5'"),
    (lambda: ConsumerConfig(fetch_max_bytes=2**31),
     "fetch_max_bytes (fetch.max.bytes) must be an integer <= 2147483647 (a Java int): "
     "2147483648"),
    (lambda: BrokerConfig(fetch_max_bytes=1000),
     "fetch_max_bytes (fetch.max.bytes) must be an integer >= 1024: 1000"),
    (lambda: ConsumerScenario(partitions=-1), "partitions must be an integer >= 1: -1"),
    (lambda: StreamsScenario(produce_records_per_s=float("inf")),
     "produce_records_per_s must be a finite number: inf"),
    (lambda: ConsumerScenario(paused_partitions=-1),
     "paused_partitions must be a tuple of partitions: -1"),
    (lambda: ShareGroupScenario(partitions=2**70),
     "partitions must be an integer <= 9223372036854775807 (a 64-bit integer): "
     "1180591620717411303424"),
    (lambda: TieredFetchScenario(backlog_bytes=2**70),
     "backlog_bytes must be an integer <= 9223372036854775807 (a 64-bit integer): "
     "1180591620717411303424"),
    (lambda: TieredFetchScenario(remote_read_bytes_per_s=float("inf")),
     "remote_read_bytes_per_s must be a finite number: inf"),
    (lambda: TieredFetchScenario(remote_fetch_max_bytes_per_s=float("inf")),
     "remote_fetch_max_bytes_per_s (remote.log.manager.fetch.max.bytes.per.second) must be a "
     "finite number: inf"),
    (lambda: Workload(produce_bytes_per_s=float("nan")),
     "produce_bytes_per_s must be a number: nan"),
    (lambda: StreamsScenario(global_thread="yes"), "global_thread must be True or False: 'yes'"),
])
def test_the_cases_the_issue_names_are_each_one_valueerror_in_the_one_shape(call, message):
    """The issue's examples: a TypeError, a message without name or value, or no error at all
    before; now each is the one shape."""
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def test_a_tuple_field_takes_any_iterable_and_stores_a_tuple():
    """A list of partitions is taken as the tuple it means (a frozen scenario stays hashable)."""
    scenario = ConsumerScenario(paused_partitions=[1, 2])
    assert scenario.paused_partitions == (1, 2)
    assert hash(scenario) == hash(ConsumerScenario(paused_partitions=(1, 2)))


def test_a_config_stores_numpy_integers_as_ints_and_a_scenario_keeps_them_as_given():
    """Config classes normalise slider values (numpy ints) to ints, as before."""
    import numpy as np

    assert type(ConsumerConfig(fetch_max_bytes=np.int64(4096)).fetch_max_bytes) is int
    assert ConsumerScenario(fetch_max_bytes=np.int64(4096)).fetch_max_bytes == 4096

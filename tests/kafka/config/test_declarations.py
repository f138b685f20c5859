"""Tests for kipviz.kafka.config.declarations and kipviz.kafka.config.fields: every Kafka setting
declared once, and the scenarios and configs that read the declarations."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given

from kipviz.kafka.config.declarations import BROKER, CONSUMER, ROLES, STREAMS
from kipviz.kafka.config.fields import check_setting, field_setting, values_from
from kipviz.kafka.config.keys import is_known
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.scenarios.broker.scenario import BrokerScenario
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.share_group.scenario import ShareGroupScenario
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario
from kipviz.scenarios.tour.scenario import ClusterScenario
from tests.strategies import declared_setting_values, draws

SCENARIOS = (ConsumerScenario, BrokerScenario, ReassignmentScenario, StreamsScenario,
             ShareGroupScenario, TieredFetchScenario)
NOT_IN_KAFKA = {("consumer", "buffer.memory"),  # KIP-81, never merged
                ("consumer", "consumer_byte_rate")}  # a client-quota entity config
# Scenario fields whose default is the model's choice, not Kafka's (Kafka's is in the declaration)
MODEL_DEFAULTS = {("ReassignmentScenario", "leader_throttle_bytes_per_s"),
                  ("ReassignmentScenario", "follower_throttle_bytes_per_s"),
                  ("StreamsScenario", "threads")}


def test_python_names_are_unique_within_a_role():
    """One Python name per setting of a role, so a name never stands for two keys."""
    for table in ROLES.values():
        names = [s.name for s in table.values()]
        assert len(names) == len(set(names)), table.role


def test_every_consumer_and_broker_key_is_one_kafka_defines_today():
    """The declared keys are Kafka's own (trunk's ConfigDef lists), but KIP-81's buffer.memory
    and the consumer_byte_rate quota, which are not client or broker configs."""
    for table in (CONSUMER, BROKER):
        for key in table:
            if (table.role, key) not in NOT_IN_KAFKA:
                assert is_known(table.role, key, "trunk"), (table.role, key)


def test_the_same_key_on_two_roles_is_two_settings():
    """fetch.max.bytes is 50 MiB atLeast(0) on a consumer and 55 MiB atLeast(1024) on a broker;
    max.poll.records is 500 for a consumer and 1000 in Streams (CONSUMER_DEFAULT_OVERRIDES)."""
    assert (CONSUMER["fetch.max.bytes"].default, CONSUMER["fetch.max.bytes"].validator) == (
        52428800, "atLeast(0)")
    assert (BROKER["fetch.max.bytes"].default, BROKER["fetch.max.bytes"].validator) == (
        57671680, "atLeast(1024)")
    assert (CONSUMER["max.poll.records"].default, STREAMS["max.poll.records"].default) == (
        500, 1000)


@pytest.mark.parametrize("key", ["leader.replication.throttled.rate",
                                 "follower.replication.throttled.rate",
                                 "replica.fetch.max.bytes"])
def test_throttled_rates_and_replica_fetch_max_bytes_are_at_least_zero_as_in_kafka(key):
    """QuotaConfig and ReplicationConfigs define these three with atLeast(0)."""
    assert BROKER[key].validator == "atLeast(0)"


def test_an_undeclared_key_names_the_role():
    """Looking up a key kipviz does not declare says so."""
    with pytest.raises(KeyError, match=r"kipviz declares no broker setting 'fetch\.max\.byte'"):
        BROKER["fetch.max.byte"]


@pytest.mark.parametrize("cls", [ConsumerConfig, BrokerConfig])
def test_config_defaults_are_the_declared_defaults(cls):
    """A config class holds each setting's declared default; nothing is repeated."""
    config = cls()
    for f in dataclasses.fields(cls):
        setting = field_setting(f)
        assert setting is not None and getattr(config, f.name) == setting.default, f.name


@pytest.mark.parametrize("cls", SCENARIOS)
def test_scenario_kafka_fields_default_to_kafka_unless_the_model_says_so(cls):
    """Every scenario field that is a Kafka setting defaults to the declared default (or None,
    "the release's default", where the default changed between releases), but the few whose
    default is the model's own choice (listed here)."""
    for f in dataclasses.fields(cls):
        setting = field_setting(f)
        if setting is not None and (cls.__name__, f.name) not in MODEL_DEFAULTS:
            by_release = f.default is None and bool(setting.default_until)
            assert f.default == setting.default or by_release, (cls.__name__, f.name)


def test_from_configs_copies_every_shared_setting():
    """One mapping: each consumer setting a ConsumerScenario models comes from the consumer's
    config, and the broker's fetch.max.bytes from the broker's."""
    consumer = ConsumerConfig(fetch_max_bytes=8 << 20, max_partition_fetch_bytes=2 << 20,
                              fetch_min_bytes=10, fetch_max_wait_ms=100,
                              heartbeat_interval_ms=1000, buffer_memory_bytes=64 << 20)
    broker = BrokerConfig(fetch_max_bytes=16 << 20)
    s = ConsumerScenario.from_configs(consumer, broker, partitions=10)
    assert (s.fetch_max_bytes, s.max_partition_fetch_bytes, s.fetch_min_bytes,
            s.fetch_max_wait_ms, s.heartbeat_interval_ms, s.buffer_memory_bytes,
            s.broker_fetch_max_bytes, s.partitions) == (
        8 << 20, 2 << 20, 10, 100, 1000, 64 << 20, 16 << 20, 10)
    assert set(values_from(ConsumerScenario, consumer, broker)) == {
        "fetch_max_bytes", "max_partition_fetch_bytes", "fetch_min_bytes", "fetch_max_wait_ms",
        "heartbeat_interval_ms", "buffer_memory_bytes", "broker_fetch_max_bytes"}


def test_cluster_from_configs_takes_a_throttle_of_zero_as_kafka_does():
    """A broker file with a throttle of 0 (legal in Kafka) reaches the reassignment."""
    broker = BrokerConfig(leader_replication_throttled_rate_bytes_per_s=0,
                          replica_fetch_max_bytes=0, queued_max_request_bytes=200 << 20)
    cluster = ClusterScenario.from_configs(broker=broker)
    assert cluster.reassignment.leader_throttle_bytes_per_s == 0
    assert cluster.reassignment.follower_throttle_bytes_per_s is None
    assert cluster.reassignment.replica_fetch_max_bytes == 0
    assert cluster.broker.queued_max_request_bytes == 200 << 20
    assert values_from(BrokerScenario, broker) == {
        "queued_max_request_bytes": 200 << 20, "socket_request_max_bytes": 104857600,
        "queued_max_requests": 500, "num_io_threads": 8}


def test_check_setting_names_the_argument_the_setting_and_the_rule():
    """A function argument holding a setting is checked by its declaration."""
    assert check_setting("window_num", 11, BROKER["quota.window.num"]) == 11
    with pytest.raises(ValueError, match=re.escape(
            "delivery_count_limit (group.share.delivery.count.limit) must be an integer >= 2 and "
            "<= 10: 11")):
        check_setting("delivery_count_limit", 11, BROKER["group.share.delivery.count.limit"])


@pytest.mark.parametrize("cls", [ConsumerConfig, BrokerConfig])
@given(data=draws)
def test_a_config_accepts_a_value_exactly_when_its_declared_range_does(cls, data):
    """For any setting of a config class and any value of its Java type, the config accepts
    the value iff the declaration's at_least / at_most do (KIP-81 and the KIP-72 pool pair
    rules aside): the declaration is the only place the range is written."""
    name, setting, value = data.draw(declared_setting_values(cls))
    inside = ((setting.at_least is None or value >= setting.at_least)
              and (setting.at_most is None or value <= setting.at_most))
    try:
        config = cls(**{name: value})
    except ValueError as err:
        paired = str(err).startswith((
            "buffer_memory_bytes (buffer.memory) must be >= fetch.max.bytes",
            "queued_max_request_bytes (queued.max.request.bytes) must be <= 0 (no pool) or"))
        assert paired or not inside, err
    else:
        assert inside and getattr(config, name) == value

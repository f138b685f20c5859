"""The tour: one cluster's knobs on one dashboard, and a user's own Kafka configs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kipviz import data_file
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.plots.tour import TOUR_TRACES, tour_figure
from kipviz.scenarios.tour.scenario import TOUR_SETTINGS, ClusterScenario
from kipviz.widgets._base import NOT_SET
from kipviz.widgets.tour import TourDashboard

MiB = 2**20
BASE = ClusterScenario()
SMALL = replace(BASE, consumer=replace(BASE.consumer, partitions=24, ticks=300, windows=6),
                broker=replace(BASE.broker, connections=20, ticks=300, spike_start_ms=500,
                               spike_duration_ms=1000),
                reassignment=replace(BASE.reassignment, partitions=3, log_bytes=20_000_000,
                                     ticks=400))


def test_every_knob_belongs_to_one_part_and_reads_back():
    """settings() returns each knob from the scenario that owns it; with_settings sets it."""
    cluster = BASE.with_settings(fetch_max_bytes=8 * MiB, queued_max_request_bytes=-1,
                                 leader_throttle_bytes_per_s=None)
    assert cluster.consumer.fetch_max_bytes == 8 * MiB
    assert cluster.broker.queued_max_request_bytes == -1
    assert cluster.reassignment.leader_throttle_bytes_per_s is None
    assert set(cluster.settings()) == set(TOUR_SETTINGS)
    assert cluster.reassignment == replace(BASE.reassignment, leader_throttle_bytes_per_s=None)


@pytest.mark.parametrize(("settings", "message"), [
    ({"fetch.max.bytes": 1}, r"unknown setting 'fetch.max.bytes'; the tour knows"),
    ({"buffer_memory_bytes": 1 * MiB},
     r"buffer_memory_bytes \(buffer.memory\) must be >= fetch.max.bytes \(16777216; KIP-81"),
    ({"queued_max_request_bytes": 5 * MiB},
     r"queued_max_request_bytes \(queued.max.request.bytes\) must be <= 0 \(no pool\) or >= "
     r"socket.request.max.bytes"),
])
def test_bad_knobs_name_the_kafka_setting_and_the_rule(settings, message):
    """Unknown names and values a scenario rejects raise ValueError; nothing is clamped."""
    with pytest.raises(ValueError, match=message):
        BASE.with_settings(**settings)


def test_a_users_configs_set_the_clusters_settings():
    """consumer.properties sets the consumer's fetch settings; a broker config sets the pool and
    the throttles (None = unlimited stays unlimited)."""
    consumer = ConsumerConfig.from_properties(data_file("consumer.properties")).config
    broker = BrokerConfig(queued_max_request_bytes=200 * MiB,
                          leader_replication_throttled_rate_bytes_per_s=50_000_000)
    cluster = ClusterScenario.from_configs(consumer, broker)
    assert cluster.consumer.fetch_max_bytes == 16 * MiB
    assert cluster.consumer.max_partition_fetch_bytes == 2 * MiB
    assert cluster.consumer.fetch_min_bytes == 65536
    assert cluster.consumer.buffer_memory_bytes is None
    assert cluster.broker.queued_max_request_bytes == 200 * MiB
    assert cluster.reassignment.leader_throttle_bytes_per_s == 50_000_000
    assert cluster.reassignment.follower_throttle_bytes_per_s is None


def test_the_tour_figure_has_its_fixed_traces():
    """One trace per spec, four subplots."""
    assert len(tour_figure().data) == len(TOUR_TRACES) == 12


@pytest.fixture(scope="module")
def tour(spark):
    return TourDashboard(SMALL, spark=spark)


def test_the_tour_redraws_and_recomputes_only_the_part_that_changed(tour):
    """A broker knob re-runs the broker only: the consumer's curves are the same object."""
    consumer, move = tour.curves.consumer, tour.curves.reassignment
    assert tour.update(queued_max_request_bytes=-1) is not None
    assert tour.curves.consumer is consumer and tour.curves.reassignment is move
    assert not tour.curves.broker.has_pool
    assert all(len(t.x) > 0 for t in tour.figure.data[:4])


def test_unset_buffer_memory_and_unlimited_throttles_are_slider_positions(tour):
    """buffer.memory "unset" is today's consumer; "unlimited" throttles are Kafka's default."""
    tour.update(buffer_memory_bytes=NOT_SET, leader_throttle_bytes_per_s=None)
    assert tour.scenario.consumer.buffer_memory_bytes is None
    assert tour.scenario.reassignment.leader_throttle_bytes_per_s is None
    assert tour.curves.consumer.labels == ("today",)
    assert tour.controls["buffer_memory_bytes"].value is NOT_SET
    assert "buffer.memory unset" in tour.summary.value


def test_the_sample_configs_are_a_healthy_cluster_that_a_control_breaks(tour):
    """data/server.properties is one Kafka accepts (queued.max.request.bytes >= socket.request.
    max.bytes) with throttles above R x IN: loading the samples warns of nothing and the move
    finishes; a leader throttle of 20 MB/s (below 3 x 10 MB/s) breaks it, and the warning is
    one line with its detail a click away."""
    broker = BrokerConfig.from_properties(data_file("server.properties"))
    assert not broker.warnings
    assert broker.config.queued_max_request_bytes >= broker.config.socket_request_max_bytes
    assert tour.load(data_file("consumer.properties"), data_file("server.properties")) is not None
    assert tour.config_notes == [] and tour.warning.value == ""
    assert tour.curves.reassignment.finished
    tour.controls["leader_throttle_bytes_per_s"].value = 20_000_000  # as a user would
    assert "<summary" in tour.warning.value
    assert "The reassignment never finishes</summary>" in tour.warning.value


def test_a_rejected_knob_is_a_warning_and_a_pasted_config_warns_of_risky_values(tour):
    """buffer.memory below fetch.max.bytes warns; a throttle below IN in a broker config is
    listed with the reassignment that never finishes."""
    assert tour.update(buffer_memory_bytes=8 * MiB) is None
    assert "buffer_memory_bytes (buffer.memory) must be &gt;= fetch.max.bytes" in tour.warning.value
    assert tour.load(broker={"leader.replication.throttled.rate": "5000000"}) is not None
    assert "at or below the inbound rate" in tour.warning.value
    assert tour.scenario.reassignment.leader_throttle_bytes_per_s == 5_000_000

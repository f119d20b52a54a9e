"""The Grafana dashboard is well formed and provisioned next to Prometheus in docker-compose."""

from __future__ import annotations

import yaml

from tests.support.dashboard import DASHBOARD, ROOT, load_dashboard, metric_names, queries

PROVISIONING = ROOT / "deploy" / "grafana" / "provisioning"


def test_every_panel_queries_the_provisioned_prometheus() -> None:
    dashboard = load_dashboard()
    (source,) = yaml.safe_load((PROVISIONING / "datasources" / "prometheus.yml").read_text())["datasources"]
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])
    for panel in panels:
        assert panel["datasource"]["uid"] == source["uid"], panel["title"]
        assert panel["targets"], panel["title"]
        assert all(t["datasource"]["uid"] == source["uid"] for t in panel["targets"]), panel["title"]
    assert source["url"] == "http://prometheus:9090"


def test_the_dashboard_covers_what_the_issue_asks() -> None:
    names = set().union(*(metric_names(e) for e in queries(load_dashboard())))
    assert {
        "gateway_http_request_duration_seconds_count",  # request and error rates
        "gateway_http_request_duration_seconds_bucket",  # latency percentiles
        "nv_inference_queue_duration_us",
        "nv_inference_compute_infer_duration_us",
        "nv_gpu_utilization",
        "gateway_document_pages_total",  # PDF pages per second
    } <= names


def test_compose_provisions_grafana_next_to_prometheus() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    grafana = services["grafana"]
    name, _, tag = grafana["image"].partition(":")
    assert name == "grafana/grafana" and tag and tag != "latest"
    assert "prometheus" in grafana["depends_on"]
    # container path -> host path
    mounts = {inside: host for host, inside in (v.removesuffix(":ro").split(":") for v in grafana["volumes"])}
    assert (ROOT / mounts["/etc/grafana/provisioning"]).resolve() == PROVISIONING
    provider = yaml.safe_load((PROVISIONING / "dashboards" / "seal-gateway.yml").read_text())["providers"][0]
    dashboards = ROOT / mounts[provider["options"]["path"]]
    assert (dashboards / "seal-gateway.json").resolve() == DASHBOARD


def test_a_slow_bucket_links_to_its_traces_in_the_provisioned_jaeger() -> None:
    datasources = PROVISIONING / "datasources"
    (prometheus,) = yaml.safe_load((datasources / "prometheus.yml").read_text())["datasources"]
    (jaeger,) = yaml.safe_load((datasources / "jaeger.yml").read_text())["datasources"]
    assert jaeger["type"] == "jaeger" and jaeger["url"] == "http://jaeger:16686"
    (link,) = prometheus["jsonData"]["exemplarTraceIdDestinations"]
    assert link == {"name": "trace_id", "datasourceUid": jaeger["uid"]}  # the gateway's exemplar label
    latency = [
        target
        for panel in load_dashboard()["panels"]
        for target in panel.get("targets", [])
        if "_duration_seconds_bucket" in target["expr"] and "gateway_" in target["expr"]
    ]
    assert latency and all(target.get("exemplar") is True for target in latency)
    names = set().union(*(metric_names(e) for e in queries(load_dashboard())))
    assert "gateway_tracing_spans_dropped_total" in names

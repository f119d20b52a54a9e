"""The Kubernetes manifests render with a real kustomize and every object passes the schemas.

`kubectl kustomize` from Debian's kubernetes-client 1.20 (kustomize v2.0.3, fetched pinned by
`scripts/kubectl.sh`) renders each kustomization, and a newer kubectl on PATH, when there is
one, must render the same objects. `kubernetes-validate` checks every object in strict mode
(unknown fields are errors) against the oldest and the newest Kubernetes it knows here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gateway.otlp import otlp_target, triton_trace_args

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
PINNED_KUBECTL = ROOT / ".cache" / "kubectl" / "kubectl"
KUSTOMIZATIONS = {"gpu": K8S, "cpu": K8S / "overlays" / "cpu"}
# The schemas shipped in kubernetes-validate 1.37.0 span 1.25 to 1.37; 1.29 is the oldest
# Kubernetes still commonly run (EKS/GKE extended support), 1.37 the newest.
KUBERNETES_VERSIONS = ("1.29.0", "1.37.0")
Manifest = dict[str, Any]
Objects = dict[tuple[str, str], Manifest]


def render(kustomization: Path, kubectl: Path = PINNED_KUBECTL) -> list[Manifest]:
    assert kubectl.exists(), f"{kubectl} is missing: `make setup` fetches it (scripts/kubectl.sh)"
    result = subprocess.run(
        [str(kubectl), "kustomize", str(kustomization)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def by_kind(objects: list[Manifest]) -> Objects:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


@pytest.fixture(scope="module", params=sorted(KUSTOMIZATIONS))
def rendered(request: pytest.FixtureRequest) -> Objects:
    return by_kind(render(KUSTOMIZATIONS[request.param]))


def pod_spec(objects: Objects, name: str) -> Manifest:
    spec: Manifest = objects[("Deployment", name)]["spec"]["template"]["spec"]
    return spec


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_object_is_valid_in_strict_mode(rendered: Objects, version: str) -> None:
    for key, manifest in rendered.items():
        try:
            kubernetes_validate.validate(manifest, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{key} against Kubernetes {version}: {exc.message} at {list(exc.path)}")


def test_the_base_holds_what_a_scaled_out_deployment_needs() -> None:
    objects = by_kind(render(K8S))
    expected = {
        ("Namespace", "seal-gateway"),
        ("Deployment", "gateway"),
        ("Service", "gateway"),
        ("Secret", "gateway-api-keys"),
        ("Deployment", "triton"),
        ("Service", "triton-headless"),
        ("HorizontalPodAutoscaler", "gateway"),
        ("HorizontalPodAutoscaler", "triton"),
        ("PodDisruptionBudget", "gateway"),
        ("PodDisruptionBudget", "triton"),
        ("NetworkPolicy", "triton-ingress"),
    }
    assert expected <= set(objects)
    assert objects[("Service", "triton-headless")]["spec"]["clusterIP"] == "None"
    assert {o["metadata"].get("namespace") for o in objects.values() if o["kind"] != "Namespace"} == {
        "seal-gateway"
    }


def test_the_gateway_balances_over_the_headless_service_and_reads_its_keys_from_the_secret() -> None:
    spec = pod_spec(by_kind(render(K8S)), "gateway")
    container = spec["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["GATEWAY_TRITON_URL"] == "dns:///triton-headless:8001"
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert env["GATEWAY_API_KEYS"].startswith(mounts["api-keys"] + "/")
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["api-keys"]["secret"]["secretName"] == "gateway-api-keys"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_triton_gets_a_gpu_shared_memory_and_health_probes() -> None:
    spec = pod_spec(by_kind(render(K8S)), "triton")
    container = spec["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    shm = next(v for v in spec["volumes"] if v["name"] == "dshm")
    assert shm["emptyDir"]["medium"] == "Memory"
    assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/v2/health/live"
    assert container["readinessProbe"]["httpGet"]["path"] == "/v2/health/ready"
    assert container["startupProbe"]["failureThreshold"] * container["startupProbe"]["periodSeconds"] >= 120
    # Without a connection age, gateways would never re-resolve DNS and never see new Tritons.
    assert any(arg.startswith("--grpc-max-connection-age=") for arg in container["args"])


def test_the_cpu_overlay_asks_for_no_gpu() -> None:
    spec = pod_spec(by_kind(render(KUSTOMIZATIONS["cpu"])), "triton")
    assert "nvidia.com/gpu" not in spec["containers"][0]["resources"]["limits"]
    assert "tolerations" not in spec


def test_every_container_is_probed_limited_and_locked_down(rendered: Objects) -> None:
    for name in ("gateway", "triton"):
        spec = pod_spec(rendered, name)
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        assert spec["automountServiceAccountToken"] is False
        for container in spec["containers"]:
            assert {"livenessProbe", "readinessProbe"} <= set(container), container["name"]
            assert {"cpu", "memory"} <= set(container["resources"]["requests"])
            assert {"cpu", "memory"} <= set(container["resources"]["limits"])
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"]["drop"] == ["ALL"]


def test_only_the_gateway_reaches_tritons_inference_ports(rendered: Objects) -> None:
    policy = rendered[("NetworkPolicy", "triton-ingress")]["spec"]
    assert policy["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "triton"}
    assert policy["policyTypes"] == ["Ingress"]
    sources = {port["port"]: rule["from"] for rule in policy["ingress"] for port in rule["ports"]}
    gateway_only = [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "gateway"}}}]
    assert sources[8000] == sources[8001] == gateway_only
    assert sources[8002][0]["namespaceSelector"]  # Prometheus, from its own namespace
    assert set(sources) == {8000, 8001, 8002}


def test_autoscalers_target_the_deployments(rendered: Objects) -> None:
    for name in ("gateway", "triton"):
        hpa = rendered[("HorizontalPodAutoscaler", name)]["spec"]
        assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}
        assert 1 < hpa["minReplicas"] < hpa["maxReplicas"]
    triton_metric = rendered[("HorizontalPodAutoscaler", "triton")]["spec"]["metrics"][0]
    assert triton_metric["pods"]["metric"]["name"] == "triton_pending_requests"
    rules = yaml.safe_load((K8S / "prometheus-adapter-rules.yaml").read_text())
    assert [r["name"]["as"] for r in rules["rules"]] == ["triton_pending_requests"]


def test_prometheus_scrapes_the_annotated_pods(rendered: Objects) -> None:
    for name, port in (("gateway", "8080"), ("triton", "8002")):
        annotations = rendered[("Deployment", name)]["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/port"] == port


@pytest.mark.skipif(
    not shutil.which("kubectl") or Path(shutil.which("kubectl") or "").resolve() == PINNED_KUBECTL,
    reason="no other kubectl on PATH",
)
@pytest.mark.parametrize("name", sorted(KUSTOMIZATIONS))
def test_a_newer_kustomize_renders_the_same_objects(name: str) -> None:
    newer = Path(shutil.which("kubectl") or "")
    assert by_kind(render(KUSTOMIZATIONS[name], newer)) == by_kind(render(KUSTOMIZATIONS[name]))


def test_the_gateway_and_triton_trace_to_the_collector_the_config_map_names(rendered: Objects) -> None:
    tracing = rendered[("ConfigMap", "tracing")]["data"]
    assert otlp_target(tracing) is None  # shipped off: the endpoint is the operator's to name
    gateway = pod_spec(rendered, "gateway")["containers"][0]
    assert {"configMapRef": {"name": "tracing"}} in gateway["envFrom"]
    triton = pod_spec(rendered, "triton")["containers"][0]
    (endpoint,) = [e for e in triton["env"] if e["name"] == "OTEL_EXPORTER_OTLP_ENDPOINT"]
    assert endpoint["valueFrom"]["configMapKeyRef"] == {"name": "tracing", "key": endpoint["name"]}
    # Kubernetes expands $(VAR) in args: the same flags `serve` derives from the same variable.
    target = otlp_target({"OTEL_EXPORTER_OTLP_ENDPOINT": "$(OTEL_EXPORTER_OTLP_ENDPOINT)"})
    flags = triton_trace_args(target)
    assert [f"{flag}={value}" for flag, value in zip(flags[::2], flags[1::2], strict=True)] == [
        arg for arg in triton["args"] if arg.startswith("--trace-config")
    ]

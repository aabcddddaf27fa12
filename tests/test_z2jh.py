"""The Zero to JupyterHub values the workshop writes: keys and types against our own schema of the keys we use
(tests/z2jh/values-we-use.schema.yaml, after the chart version `Z2JH_CHART`), and the collector wired end to end."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
import yaml

from failuremap_edu.instructor._hub import COLLECTOR_PORT, SPAWN_TIMEOUT, Z2JH_CHART, z2jh_config

SCHEMA = Path(__file__).resolve().parent / "z2jh" / "values-we-use.schema.yaml"


def _schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))


def _errors(values: dict) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in jsonschema.Draft202012Validator(_schema()).iter_errors(values)]


def test_the_values_match_our_schema_of_the_chart_version_named_in_both():
    jsonschema.Draft202012Validator.check_schema(_schema())
    text = z2jh_config()
    assert _errors(yaml.safe_load(text)) == []
    assert f"version {Z2JH_CHART}" in SCHEMA.read_text(encoding="utf-8") and f"--version {Z2JH_CHART}" in text


@pytest.mark.parametrize("path, value", [
    (("singleuser", "startTimout"), 240),             # a misspelt key the chart refuses
    (("singleuser", "startTimeout"), "240"),          # the right key with the wrong type
    (("cull", "enabled"), "yes"),
    (("hub", "config", "kubeSpawner"), {"http_timeout": 1}),  # a traitlets class must start with a capital
    (("singleuser", "image", "pullPolicyy"), "Always"),
])
def test_the_schema_refuses_what_the_chart_would(path, value):
    values = yaml.safe_load(z2jh_config())
    node = values
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert _errors(values) != []


def test_the_collector_is_a_hub_service_beside_the_hub_that_learners_servers_can_reach():
    values = yaml.safe_load(z2jh_config(collector_port=18301))
    hub, single = values["hub"], values["singleuser"]
    service = hub["services"]["failuremap"]
    assert urlsplit(service["url"]).port == 18301 and urlsplit(service["url"]).hostname == "hub"  # the hub's Kubernetes Service
    assert hub["service"]["extraPorts"] == [{"name": "failuremap", "port": 18301, "targetPort": 18301}]
    (sidecar,) = hub["extraContainers"]
    assert sidecar["command"][:2] == ["failuremap-edu", "serve"] and sidecar["image"] == "REGISTRY/COLLECTOR:TAG"
    assert [p["containerPort"] for p in sidecar["ports"]] == [18301]
    env = {e["name"]: e for e in sidecar["env"]}
    assert urlsplit(env["JUPYTERHUB_SERVICE_URL"]["value"]).port == 18301
    assert env["JUPYTERHUB_SERVICE_PREFIX"]["value"] == "/services/failuremap/"
    assert env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"] == {"name": "hub", "key": "hub.services.failuremap.apiToken"}  # the chart's generated token
    assert {m["name"] for m in sidecar["volumeMounts"]} == {"pvc"} and sidecar["command"][3].startswith("sqlite:////srv/jupyterhub/")
    assert single["extraEnv"]["FAILUREMAP_SERVICE_URL"] == "http://hub:18301/services/failuremap/"
    assert hub["loadRoles"]["failuremap-collector"] == {"scopes": ["read:users"], "services": ["failuremap"]}
    # the network policies open exactly that port: into the hub's pod, and out of learners' pods and the proxy
    (rule,) = hub["networkPolicy"]["ingress"]
    assert rule["ports"] == [{"port": 18301}]
    assert {f["podSelector"]["matchLabels"]["component"] for f in rule["from"]} == {"proxy", "singleuser-server"}
    for policy in (single["networkPolicy"], values["proxy"]["chp"]["networkPolicy"]):
        (out,) = policy["egress"]
        assert out["ports"] == [{"port": 18301}] and out["to"] == [{"podSelector": {"matchLabels": {"component": "hub"}}}]


def test_spawns_may_be_slow_and_idle_servers_are_culled():
    values = yaml.safe_load(z2jh_config())
    assert values["singleuser"]["startTimeout"] == SPAWN_TIMEOUT and values["hub"]["config"]["KubeSpawner"]["http_timeout"] == SPAWN_TIMEOUT
    assert values["cull"] == {"enabled": True, "timeout": 3600, "every": 300}
    assert values["singleuser"]["defaultUrl"] == "/lab" and COLLECTOR_PORT == 10101


def test_the_image_is_built_from_a_learners_folder_with_nbgitpuller_and_no_reference_solution(tmp_path, capsys):
    from failuremap_edu.instructor._cli import main
    from failuremap_edu.instructor._hub import Z2JH_CONFIG

    out = tmp_path / "ws"
    references = Path(__file__).resolve().parents[1] / "references"
    assert main(["workshop", "FA-100786", "-o", str(out), "--solutions", str(references), "--repo", "https://github.com/me/course",
                 "--hub", "https://hub.example.org"]) == 0
    text = (out.with_name("ws-instructor") / Z2JH_CONFIG).read_text(encoding="utf-8")
    assert "jupyter-repo2docker --no-run" in text and "LEARNERS_FOLDER" in text
    requirements = (out / "binder" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "nbgitpuller" in requirements and "." in requirements  # repo2docker installs the folder's copy of the package
    copied = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    assert "failuremap_edu/__init__.py" in copied and not [p for p in copied if p.startswith("failuremap_edu/instructor/")]  # the kernel side only
    assert not [p for p in copied if "references" in p.split("/") or p.startswith("solutions/")]
    reference_bodies = {p.read_text(encoding="utf-8").split("def solve", 1)[1] for p in references.glob("*.py") if "def solve" in p.read_text(encoding="utf-8")}
    assert not any(body in (out / p).read_text(encoding="utf-8", errors="replace") for p in copied if p.endswith(".py") for body in reference_bodies)

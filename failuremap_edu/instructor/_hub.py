"""A workshop's hub: the JupyterHub configuration for one machine, the learners' environment it runs, Zero to JupyterHub values.

The learners' servers run in an environment of their own, with failuremap-edu
installed from a wheel of the learners' folder (`learners_env_script`): a wheel
holds no reference solution, while the instructor's editable install of a
checkout has ``references/`` beside the package. The configuration refuses to
start a hub whose learners' environment runs failuremap-edu from such a checkout.
"""

from __future__ import annotations

import shlex
from pathlib import Path

HUB_CONFIG = "jupyterhub_config.py"
Z2JH_CONFIG = "z2jh-config.yaml"
SPAWN_TIMEOUT = 240
"""Seconds a learner's server may take to start and to answer: a first spawn took 66-80 s on a busy 2-core machine."""
DEFAULT_HOMES = "/srv/workshop/homes/{username}"
"""The generated configuration's ``home_dir_template``: a home folder per learner."""
COLLECTOR_PORT = 10101
"""Where the generated hub configuration runs the class collector (`failuremap-edu serve`), on the hub's loopback."""
MEMORY_GUARANTEE, MEMORY_LIMIT = "128M", "1G"
"""Per learner. `make bench` measured 58-63 MB (PSS) for a learner's kernel, worker server and workers on a
JupyterHub; the limit leaves room for the learner's own data and a notebook or two more."""


def hub_config(hub_url: str, *, title: str = "Failure Map workshop", env_bin: str | None = None, homes: str = DEFAULT_HOMES,
               collector_port: int = COLLECTOR_PORT) -> str:
    """A JupyterHub configuration for one machine, as `tests/test_hub.py` runs it (it appends only its ports and files).

    The lines marked CHANGE are the ones real use needs changed: anyone can log in with the
    dummy authenticator, and the simple spawner runs every learner as the hub's own user.
    `env_bin` is the learners' environment's ``bin`` (default: `LEARNERS_ENV`'s, which
    `learners_env_script` builds); loading the configuration fails, in one line, where that
    environment has no failuremap-edu or runs it from a checkout beside ``references/``.
    """
    from urllib.parse import urlsplit

    parts = urlsplit(hub_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname or "0.0.0.0"
    host = host if host in ("127.0.0.1", "localhost", "::1") else "0.0.0.0"  # a hub for this machine alone stays on loopback
    env_bin = env_bin or f"{LEARNERS_ENV}/bin"
    return f"""# JupyterHub configuration for {title!r}, written by `failuremap-edu workshop --hub`.
# Start it with: jupyterhub -f /path/to/{HUB_CONFIG}, from a folder OUTSIDE any git repository: JupyterHub
# writes its database (jupyterhub.sqlite), its cookie secret and pid files into the folder it runs in.
# failuremap_edu's own tests run a hub with this configuration on one machine (tests/test_hub.py).
# A rebuild of the workshop (--force) writes this file again: keep your changes in a copy, or in
# jupyterhub_config_local.py beside it, which the last line below loads when it exists.
import os
import sys

c = get_config()  # noqa: F821 - JupyterHub provides it

# The learners' environment, where jupyterhub-singleuser, failuremap-edu and nbgitpuller are installed:
# build it with `sh {LEARNERS_ENV_SCRIPT}` (beside this file). Never the instructor's own environment: an editable
# install of the failuremap_edu repository puts its references/ (the reference solutions) on every learner's path.
ENV_BIN = {env_bin!r}  # CHANGE if you built it elsewhere
import subprocess
try:
    _where = subprocess.run([os.path.join(ENV_BIN, "python"), "-c", "import failuremap_edu, os; print(os.path.dirname(os.path.dirname(os.path.abspath(failuremap_edu.__file__))))"],
                            capture_output=True, text=True, timeout=120)
except OSError:  # no such environment
    _where = subprocess.CompletedProcess([], 1)
if _where.returncode != 0:
    raise SystemExit(f"{HUB_CONFIG}: no failuremap-edu in {{ENV_BIN}}: build the learners' environment first: sh {LEARNERS_ENV_SCRIPT}")
if os.path.isdir(os.path.join(_where.stdout.strip(), "references")):
    raise SystemExit(f"{HUB_CONFIG}: {{ENV_BIN}} runs failuremap-edu from {{_where.stdout.strip()}}, beside its references/ (reference solutions), "
                     f"which every learner could then read: build the learners' environment from the wheel: sh {LEARNERS_ENV_SCRIPT}")

c.JupyterHub.bind_url = "http://{host}:{port}/"  # CHANGE: the address learners open; in real use, https in front (a reverse proxy, or ssl_cert/ssl_key)
# JupyterHub's proxy, configurable-http-proxy, comes from npm (npm install configurable-http-proxy); if it is not on the PATH:
# c.ConfigurableHTTPProxy.command = ["/path/to/node_modules/.bin/configurable-http-proxy"]
c.JupyterHub.authenticator_class = "dummy"  # CHANGE: any user name and any password log in; use your site's authenticator
c.Authenticator.allow_all = True  # every user who can log in may start a server (else nobody but admins can)
c.JupyterHub.spawner_class = "simple"  # CHANGE: SimpleLocalProcessSpawner runs every learner as this user, for a try-out only
#   (a learner can then read whatever this user can, the instructor's folder included);
#   real use: jupyterhub.spawner.LocalProcessSpawner (a system user each), or dockerspawner / kubespawner
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r}  # CHANGE: a home folder per learner (their notebooks and progress log)
c.Spawner.cmd = [os.path.join(ENV_BIN, "jupyterhub-singleuser")]
c.Spawner.args = ["--allow-root"] if os.geteuid() == 0 else []  # jupyter-server refuses to run as root without it
c.Spawner.environment = {{"PATH": ENV_BIN + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")}}  # failuremap-edu in a terminal
# A terminal's shell is otherwise a login shell, whose /etc/profile sets PATH anew: the learners' environment would be lost.
import shutil
c.Spawner.args += [f"--ServerApp.terminado_settings=shell_command={{shutil.which('bash') or '/bin/sh'}}"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = {SPAWN_TIMEOUT}  # seconds; a first spawn on a busy 2-core machine took 66-80 s, past JupyterHub's default
c.Spawner.http_timeout = {SPAWN_TIMEOUT}  # seconds for the started server to answer (JupyterHub's default, 30 s, failed a first spawn there)
c.Spawner.mem_guarantee = {MEMORY_GUARANTEE!r}  # per learner; spawners that support it enforce it (not the simple one)
c.Spawner.mem_limit = {MEMORY_LIMIT!r}

# The class collector (`failuremap-edu serve`): learners' kernels send each run to it with their own hub token, and
# `failuremap-edu report --service http://HUB/services/failuremap/ --token TOKEN` (a hub admin's token) reads the class.
# Its runs are kept in failuremap-runs.sqlite beside this file (any SQLAlchemy URL works with --db).
FAILUREMAP_PORT = {collector_port}  # CHANGE if this port is taken on the hub's machine
c.JupyterHub.services = [{{
    "name": "failuremap",
    "url": f"http://127.0.0.1:{{FAILUREMAP_PORT}}",
    # the hub's own Python (the instructor's failuremap-edu): the learners' environment holds only the kernel side
    "command": [sys.executable, "-m", "failuremap_edu", "serve", "--db",
                "sqlite:///" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "failuremap-runs.sqlite")],
}}]
c.JupyterHub.load_roles = [{{"name": "failuremap-collector", "services": ["failuremap"], "scopes": ["read:users"]}}]  # who is an admin
c.Spawner.environment.update({{"FAILUREMAP_SERVICE_URL": f"http://127.0.0.1:{{FAILUREMAP_PORT}}/services/failuremap/"}})  # where kernels send runs

_local = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jupyterhub_config_local.py")
if os.path.exists(_local):  # your own changes, kept across rebuilds
    exec(open(_local, encoding="utf-8").read())  # noqa: S102 - your own file
"""


def live_view_lines(homes: str = DEFAULT_HOMES) -> list[str]:
    """Markdown for the instructor's README: the live view of the class, from the collector or from the homes the config makes."""
    glob = homes.replace("{username}", "*")
    return [
        "## During class: the live view",
        "",
        "On the hub, the class collector gets every learner's runs; who needs help now comes first "
        "(stuck longest, repeating the attempt's mistake, timing out). With a hub admin's token (HUB/hub/token):",
        "",
        "```sh",
        "failuremap-edu report --service http://HUB/services/failuremap/ --token TOKEN --watch",
        "failuremap-edu report --service http://HUB/services/failuremap/ --token TOKEN --watch --html live.html --anonymise   # for the projector",
        f"failuremap-edu report --homes {shlex.quote(glob)} --watch   # on the hub's machine: the learners' homes, as {HUB_CONFIG} puts them",
        "```",
        "",
    ]


LEARNERS_ENV = "/srv/workshop/env"
"""Where `learners_env_script` builds the learners' environment by default (beside the default homes)."""
LEARNERS_ENV_SCRIPT = "learners-env.sh"


def learners_env_script(learners_dir: Path) -> str:
    """A shell script that builds the learners' environment: failuremap-edu from a wheel of `learners_dir`, nbgitpuller, the hub's server.

    pip builds the wheel from the learners' folder (its ``pyproject.toml`` and copy of the
    package), so what it installs holds no reference solution. The single-user server is
    the hub's own JupyterHub version where that is installed here.
    """
    from importlib import metadata

    try:
        hub = f"jupyterhub=={metadata.version('jupyterhub')}"
    except metadata.PackageNotFoundError:
        hub = "jupyterhub"
    return f"""#!/bin/sh
# The learners' environment that {HUB_CONFIG} runs (its ENV_BIN is ENV/bin), written by `failuremap-edu workshop --hub`.
# failuremap-edu is installed from the learners' folder as a wheel (pip builds it; it holds no reference solution),
# never as an editable install, which would put a repository, its references/ included, on every learner's path.
# Usage: sh {LEARNERS_ENV_SCRIPT} [ENV] [LEARNERS_FOLDER]
set -eu
ENV="${{1:-{LEARNERS_ENV}}}"
LEARNERS="${{2:-{shlex.quote(str(Path(learners_dir).resolve()))}}}"
python3 -m venv "$ENV"
"$ENV/bin/python" -m pip install --quiet "$LEARNERS" {shlex.quote(hub)} nbgitpuller
"$ENV/bin/python" -c "import failuremap_edu; print('failuremap-edu', failuremap_edu.__version__)"
"""


Z2JH_CHART = "4.4.0"
"""The Zero to JupyterHub chart version whose values schema `z2jh_config`'s keys were read from (not run on a cluster here)."""


def z2jh_config(*, title: str = "Failure Map workshop", collector_port: int = COLLECTOR_PORT) -> str:
    """Helm values for Zero to JupyterHub (Kubernetes): the route past one machine, with the class collector beside the hub.

    The collector runs as a sidecar of the hub's pod (``hub.extraContainers``) from an
    image with failuremap-edu[hub] (the learners' image holds only the kernel side), registered as the hub service ``failuremap`` (``hub.services``) whose
    token the chart generates; learners' servers send runs to it through the hub's
    Kubernetes Service (``singleuser.extraEnv``), and the network policies let exactly them and the proxy in.
    """
    return f"""# Zero to JupyterHub values for {title!r}, written by `failuremap-edu workshop --hub`.
# Keys as in the chart's values schema of version {Z2JH_CHART} (not run on a cluster by failuremap_edu's tests):
#   helm repo add jupyterhub https://hub.jupyter.org/helm-chart/ && helm repo update
#   helm upgrade --install workshop jupyterhub/jupyterhub --version {Z2JH_CHART} --values {Z2JH_CONFIG}
# The single-user image is the learners' folder built by repo2docker: its binder/ installs failuremap-edu from the
# folder's copy of the package (the kernel side: no reference solution, no instructor tools) and nbgitpuller:
#   jupyter-repo2docker --no-run --user-name jovyan --image-name REGISTRY/IMAGE:TAG LEARNERS_FOLDER && docker push REGISTRY/IMAGE:TAG
hub:
  config:
    JupyterHub:
      authenticator_class: dummy  # CHANGE: your site's authenticator
    Authenticator:
      allow_all: true
    KubeSpawner:
      http_timeout: {SPAWN_TIMEOUT}  # seconds for a started server to answer (JupyterHub's default, 30 s, failed a first spawn on a busy machine)
  services:
    failuremap:  # the class collector at /services/failuremap/; the chart generates its token into the Secret "hub"
      url: http://hub:{collector_port}
      display: false
  loadRoles:
    failuremap-collector:  # to tell hub admins (who read the whole class) from learners (who read their own runs)
      scopes: [read:users]
      services: [failuremap]
  service:
    extraPorts:
      - name: failuremap
        port: {collector_port}
        targetPort: {collector_port}
  extraContainers:
    - name: failuremap
      image: REGISTRY/COLLECTOR:TAG  # CHANGE: an image with failuremap-edu[hub] installed (the learners' image has no collector)
      command: [failuremap-edu, serve, --db, "sqlite:////srv/jupyterhub/failuremap-runs.sqlite"]  # on the hub's volume (hub.db.type sqlite-pvc)
      ports:
        - containerPort: {collector_port}
          name: failuremap
      env:
        - name: JUPYTERHUB_SERVICE_URL
          value: http://0.0.0.0:{collector_port}
        - name: JUPYTERHUB_SERVICE_PREFIX
          value: /services/failuremap/
        - name: JUPYTERHUB_API_URL
          value: http://127.0.0.1:8081/hub/api
        - name: JUPYTERHUB_API_TOKEN
          valueFrom:
            secretKeyRef:
              name: hub
              key: hub.services.failuremap.apiToken
      volumeMounts:
        - name: pvc
          mountPath: /srv/jupyterhub
  networkPolicy:
    ingress:  # the proxy (for /services/failuremap/) and learners' servers (their runs) reach the collector
      - ports:
          - port: {collector_port}
        from:
          - podSelector:
              matchLabels:
                component: proxy
          - podSelector:
              matchLabels:
                component: singleuser-server
singleuser:
  image:
    name: REGISTRY/IMAGE  # CHANGE
    tag: TAG  # CHANGE
  defaultUrl: /lab  # nbgitpuller links (HUB/hub/user-redirect/git-pull?...) open their notebook there
  startTimeout: {SPAWN_TIMEOUT}  # seconds; a first spawn on a busy 2-core machine took 66-80 s
  extraEnv:
    FAILUREMAP_SERVICE_URL: http://hub:{collector_port}/services/failuremap/  # where kernels send runs (past the proxy)
  networkPolicy:
    egress:  # learners' kernels send their runs to the collector
      - ports:
          - port: {collector_port}
        to:
          - podSelector:
              matchLabels:
                component: hub
  memory:
    guarantee: {MEMORY_GUARANTEE}  # measured 58-63 MB per learner (PSS), see docs/how-to/zero-to-jupyterhub.md
    limit: {MEMORY_LIMIT}
  cpu:
    guarantee: 0.05
    limit: 1
proxy:
  chp:
    networkPolicy:
      egress:  # the proxy forwards /services/failuremap/ to the collector
        - ports:
            - port: {collector_port}
          to:
            - podSelector:
                matchLabels:
                  component: hub
cull:
  enabled: true  # end servers idle for an hour; their home folders (and progress logs) stay
  timeout: 3600
  every: 300
"""

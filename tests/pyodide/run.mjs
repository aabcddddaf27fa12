// Run Python inside Pyodide under node, offline, against this repository.
//
//   node tests/pyodide/run.mjs --wheels DIR SCRIPT.py [ARGS...]
//
// Pyodide is the npm package installed into the repository by `make` (node_modules/pyodide,
// the core only: no CDN, no network). The repository is mounted read-write at /repo (Python
// writes no bytecode there), the pure-Python wheels in DIR are unpacked into Pyodide's
// site-packages, and SCRIPT runs as __main__ with sys.argv = [SCRIPT, ...ARGS]. The exit
// code is the script's (SystemExit), 1 for an uncaught exception.
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const args = process.argv.slice(2);
let wheels = null;
if (args[0] === "--wheels") {
  wheels = path.resolve(args[1]);
  args.splice(0, 2);
}
if (args.length < 1) {
  console.error("usage: node tests/pyodide/run.mjs [--wheels DIR] SCRIPT.py [ARGS...]");
  process.exit(2);
}
const script = path.resolve(args[0]);

const { loadPyodide } = await import(path.join(repo, "node_modules", "pyodide", "pyodide.mjs"));
const started = performance.now();
const pyodide = await loadPyodide({ env: { PYTHONDONTWRITEBYTECODE: "1", HOME: "/home/pyodide" } });
const loadMs = performance.now() - started;
pyodide.FS.mkdirTree("/repo");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: repo }, "/repo");
if (wheels) {
  pyodide.FS.mkdirTree("/wheels");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: wheels }, "/wheels");
}
pyodide.globals.set("__fm_script", "/repo/" + path.relative(repo, script));
pyodide.globals.set("__fm_argv", pyodide.toPy(args.slice(1)));
pyodide.globals.set("__fm_load_ms", loadMs);
let code = 0;
try {
  code = await pyodide.runPythonAsync(`
import os, runpy, site, sys, zipfile
sys.dont_write_bytecode = True
os.environ["FAILUREMAP_PYODIDE_LOAD_MS"] = f"{__fm_load_ms:.0f}"
if os.path.isdir("/wheels"):
    target = site.getsitepackages()[0]
    for name in sorted(os.listdir("/wheels")):
        if name.endswith(".whl"):
            with zipfile.ZipFile(os.path.join("/wheels", name)) as zf:
                zf.extractall(target)
sys.path.insert(0, "/repo")
sys.argv = [__fm_script, *__fm_argv]
os.chdir("/tmp")
try:
    runpy.run_path(__fm_script, run_name="__main__")
    __fm_code = 0
except SystemExit as exc:
    __fm_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if not isinstance(exc.code, int) and exc.code is not None:
        print(exc.code, file=sys.stderr)
sys.stdout.flush()
sys.stderr.flush()
__fm_code
`);
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  code = 1;
}
process.exit(code);

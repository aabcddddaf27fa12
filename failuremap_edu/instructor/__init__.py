"""The instructor side: tools that build and run a class, never loaded by a learner's kernel.

  _notebook      the notebook generator (learner and instructor notebooks from a record)
  _workshop      a learners' folder to publish and a separate instructor's folder; _hub its JupyterHub configs
  _release       reference solutions released into the learners' folder after class
  _lite          a JupyterLite site: the exercises in the browser, no server
  _output        writing an output folder without losing anything that is not ours
  _authoring     a source folder built into a record; _weak_checks the mutants its checks miss; _preview the panel's text for one
  _catalog       folders of records verified in parallel
  _handin        reading what a class hands in (untrusted files); _report counts them; _need who needs help now
  render/        the class report and who-needs-help as text, HTML, a heatmap and CSV
  _service       ``failuremap-edu serve``: the class collector, a JupyterHub service; _store its database; _remote reading it
  _cli           the ``failuremap-edu`` command line (also ``python -m failuremap_edu``)

Everything here may import the kernel side (the rest of `failuremap_edu`); nothing of
the kernel side imports this package (tests/test_layers.py), and a workshop's copy of the
package for learners leaves it out.
"""

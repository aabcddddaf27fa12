"""The worker server's preload (see `_warm`): imported by that process only, never by a caller.

Importing it is what makes the server the subreaper of its workers' descendants.
"""

from ._worker import become_server

become_server()

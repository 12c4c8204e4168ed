"""The ``hyoka`` command: thin wiring from flags to library calls, nothing else.

- ``main``: the entry point and the map of every group and command (``COMMANDS``);
- ``_lazy``: the group that imports a command's module only when that command is used;
- ``_common``: every flag shared by two commands or more, declared once, and the consoles,
  progress bars and one-line error and warning reporting;
- ``*_cmd``: one module per command family; each parses its flags, calls the library and
  prints. A command module never imports another (a test checks it), so running one
  command imports what that command needs and nothing more.
"""

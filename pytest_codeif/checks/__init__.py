"""The checks that ship with pytest-codeif, one per name: the check `<name>` lives at
`checks/<name>.py` or, when it needs helper modules of its own, in the package
`checks/<name>/` (`-` in a name becomes `_`: `django-no-connection` is
`django_no_connection.py`).

Beside them: `base.py` (what a check is: `Check`, `CheckContext`, `Sample`), `registry.py`
(checks by name) and `builtin.py` (the list registered here) make up the framework, and
`shared/` holds the code several checks use. A check imports only `shared/` and `base.py`
(and the layers below `checks`), never another check (`.importlinter`, "checks")."""

"""The checks that ship with pytest-codeif, one per name: the check `<name>` lives at
`checks/<name>.py`, or in the package `checks/<name>/` when it has helper modules of its
own (`-` becomes `_`: `django-no-connection` is `django_no_connection.py`); `shared/` holds
the code several checks use; `base.py` (what a check is: `Check`, `CheckContext`,
`Sample`), `registry.py` (checks by name) and `builtin.py` (the ones registered here) are
the framework. A check imports only `shared/` and `base.py`, never another check (the
"checks" contract of `.importlinter`)."""

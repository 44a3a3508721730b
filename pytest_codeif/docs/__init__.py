"""What the documentation site generates from the code, so that it cannot drift: a page
per check, the task-file and command-line references, and the task-file JSON Schema
shipped for editors. `docs/hooks.py` adds the pages to the site when mkdocs builds it;
`python -m pytest_codeif.docs` rewrites the shipped schema (a test fails until you do)."""

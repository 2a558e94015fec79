"""The documentation site: the MkDocs plugin, its citation macros and the generated pages.

Rendering is pure (knowledge-base data in, Markdown and JSON strings out); only
`a2a_kb.site.plugin` and [`a2a_kb.site.build`][a2a_kb.site.build] touch MkDocs and the disk.

May import: every other stage (it renders what they produce), never the CLI.
"""

"""`advisor server`: the language server (LSP over stdio) that shows findings in the editor.

`lsp` speaks the protocol (pygls, an optional extra); `adapter` is the only module
here that calls into advisor's engine, config and fixer, so the editor sees exactly
what `advisor scan` / `advisor fix` would report and change for the same text.
"""

"""Structural search and staged rewrites on tree-sitter.

`pattern` compiles a code pattern through a ladder of wrapping contexts, `match` finds it in
parsed trees, `rewrite` turns matches into edits, `plan` stages and applies them, and `api`
is what the rest of the bot calls.
"""

TOOL = "ast-grep"  # the tool name rule findings carry (imports nothing heavy)

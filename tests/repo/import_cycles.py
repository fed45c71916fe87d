"""The import-cycle search both architecture tests use (the library's and the app's)."""

from __future__ import annotations


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph (as the list of its modules, the first repeated at the end), or [] when none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for child in sorted(graph[node]):
            if state.get(child) == 1:
                return path[path.index(child) :] + [child]
            if child not in state and (found := visit(child)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []

"""The playground of an exercise: typed inputs, called on yours, the attempt and broken, each under a check's time limit.

A mixin of `_exercise.Exercise`. Nothing typed is evaluated in the caller: the
runner's `try_call` runs it in a worker, as a check runs solve.
"""

from __future__ import annotations

from ._results import CallResult, Observation
from ._solution import SolutionError
from ._values import safe_repr
from .runner import parse_call_arguments, try_call

__all__ = ["Playground"]


class Playground:
    """Typed inputs tried on every solve (mixed into `_exercise.Exercise`: it sets the ``playground_*`` state and calls `_changed`)."""

    def example_arguments(self) -> str | None:
        """Arguments a learner can type, taken from this exercise's own checks (evaluated, current variant)."""
        found = self._example()
        return found[0] if found else None

    def example_check(self) -> str:
        """Where the playground's example comes from, when that check compares an expression of the result, not the result."""
        found = self._example()
        if not found or not found[1].compared:
            return ""
        return f"The check '{found[1].check}' compares {found[1].compared}; here you see what solve itself returns."

    def _example(self) -> tuple[str, Observation] | None:
        variant = self.variants[0]
        runs = [run for run in self.runs if run.variant == variant] or [self._replays.get((variant, "attempt"))]
        for run in runs:
            for o in run.observations if run is not None else ():
                inner = o.call[len("solve(") : -1] if o.call.startswith("solve(") and o.call.endswith(")") else ""
                if inner and len(inner) <= 200 and "; solve(" not in o.call:
                    try:
                        parse_call_arguments(inner)
                    except ValueError:
                        continue
                    return inner, o
        return None

    def try_inputs(self, text: str) -> None:
        """Playground: call yours, the attempt and the broken solve on the typed inputs."""
        self._try(text)
        self._changed()

    def _try(self, text: str) -> None:
        self.playground_input = text
        self.playground_rows, self.playground_message, self.playground_values = (), "", ()
        example = self.example_arguments()
        if not text.strip():
            self.playground_message = "Type arguments (values, or expressions over the record's names)" + (f", for example: {example}" if example else ".")
            if example and self.example_check():
                self.playground_message += f" ({self.example_check()})"
            return
        expression = None
        try:
            args, kwargs = parse_call_arguments(text, example=example)
        except ValueError as exc:
            if not str(exc).startswith("only literal values"):
                self.playground_message = str(exc)
                return
            args, kwargs, expression = (), {}, text  # names and calls: evaluated in the worker, as solve runs (`runner.try_call`)
        rows, values = [], []
        whose = [("yours", self.solve, None)] if self.solve is not None else []
        whose += [("attempt", None, "attempt"), ("broken", None, "broken")]
        for who, solve, implementation in whose:
            try:
                result = try_call(self.record, solve, args, kwargs, implementation=implementation, timeout=self.timeout, expression=expression)
            except SolutionError as exc:
                rows.append((who, "error", str(exc)))
                continue
            rows.append((who, *_playground_cell(result, self.timeout)))
            if result.status == "returned":
                values.append((who, result.value))
        self.playground_rows, self.playground_values = tuple(rows), tuple(values)


def _playground_cell(result: CallResult, timeout: float) -> tuple[str, str]:
    if result.status == "returned":
        # Modifying an argument, which a contract may forbid, said here too: the playground never shows it as fine.
        notes = [f"and {result.mutation}"] * bool(result.mutation) + [str(claim) for claim in result.state]
        return "returned", safe_repr(result.value, 400) + "".join(f" ({note})" for note in notes)
    if result.status == "timeout":
        return "timeout", f"no result after {timeout:g} s (the time limit of a check): does solve loop forever on these inputs?"
    return result.status, str(result.error) if result.error else result.status

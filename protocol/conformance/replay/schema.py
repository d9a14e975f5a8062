"""Checking what the server writes against protocol/schema/taskline.schema.json, when jsonschema is installed."""

import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "taskline.schema.json"


def definition_name(method):
    """`tasks/create` -> `tasksCreate`, `$/cancelRequest` -> `cancelRequest` (the schema's naming rule)."""
    words = [word for word in method.replace("$", "").split("/") if word]
    return "".join(word if index == 0 else word[0].upper() + word[1:] for index, word in enumerate(words))


def jsonschema_available():
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return True


class SchemaChecker:
    """Validates every server message against `serverMessage`, results against their method's `<name>Result`,
    and the requests the client sent against `request` (the envelope and its method's `<name>Params`)."""

    def __init__(self, path=SCHEMA_PATH):
        import jsonschema

        self._jsonschema = jsonschema
        self.schema = json.loads(Path(path).read_text(encoding="utf-8"))
        self._validators = {}

    def validator(self, definition):
        """A validator for `#/$defs/<definition>` (the whole document, so its references resolve)."""
        if definition not in self._validators:
            root = {**self.schema, "$ref": f"#/$defs/{definition}"}
            self._validators[definition] = self._jsonschema.Draft202012Validator(root)
        return self._validators[definition]

    def _problem(self, definition, value, path):
        error = self._jsonschema.exceptions.best_match(self.validator(definition).iter_errors(value))
        if error is None:
            return None
        location = path + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
        return f"schema {definition}: {location}: {error.message}"

    def message_problem(self, message):
        return self._problem("serverMessage", message, "$")

    def request_problem(self, request):
        return self._problem("request", request, "request")

    def result_problem(self, method, result, path):
        definition = definition_name(method) + "Result"
        if definition not in self.schema["$defs"]:
            return None
        return self._problem(definition, result, path)

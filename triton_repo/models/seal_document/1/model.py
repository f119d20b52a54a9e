"""seal_document (BLS, decoupled): a PDF in, the `seal` model's answer for each page as it is read
(see pydocument)."""

from __future__ import annotations

from imgproc.arrays import AnyArray
from imgproc.seal.expected import check_requested, expected_names
from pydocument import DocumentModel


class TritonPythonModel(DocumentModel):
    """pydocument.DocumentModel; config.pbtxt names the page model and the rendering caps."""

    def check_inputs(self, inputs: dict[str, AnyArray]) -> None:
        # Refused before the page count, not on every page.
        expected_names(inputs.get("EXPECTED"))
        check_requested(inputs.get("CHECK"))

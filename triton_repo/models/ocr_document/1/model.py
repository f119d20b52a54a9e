"""ocr_document (BLS, decoupled): a PDF in, the `ocr` model's answer for each page as it is read
(see pydocument)."""

from __future__ import annotations

from pydocument import DocumentModel


class TritonPythonModel(DocumentModel):
    """pydocument.DocumentModel; config.pbtxt names the page model and the rendering caps."""

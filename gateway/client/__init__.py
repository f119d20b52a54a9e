"""A command-line client for folders of images and PDFs: `python -m gateway.client`.

It walks the paths it is given (`files`), sends each file to one endpoint of a running
gateway with a bounded number of requests in flight, retries what the service asks to be
retried (429 and 503, honouring `Retry-After`; connection failures and 504 with back-off),
and writes one JSON line per file (`{"file", "status", "result" | "error"}`) as soon as
it is answered, a PDF's pages each a line of their own as they are read (`{"file", "page",
"status", "result" | "error"}`, streamed: `runner`), so a run that stops can be resumed by
skipping the files that already have a final answer in the output. Progress goes to stderr
(`progress`).
"""

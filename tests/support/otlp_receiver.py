"""A real OTLP/HTTP receiver for the telemetry tests.

Decodes each export with the OpenTelemetry protocol's own message types
(the `opentelemetry-proto` package), appends it to OUT as one JSON line
{"path": ..., "body": ...}, and answers as a collector does. Prints the
port it listens on, then serves until killed.

    python otlp_receiver.py OUT
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

KINDS = {
    "/v1/traces": (
        trace_service_pb2.ExportTraceServiceRequest,
        trace_service_pb2.ExportTraceServiceResponse,
    ),
    "/v1/metrics": (
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
    ),
}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        kind = KINDS.get(self.path)
        if kind is None or self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        request = kind[0]()
        request.ParseFromString(body)
        with open(sys.argv[1], "a", encoding="utf-8") as out:
            out.write(json.dumps({"path": self.path, "body": MessageToDict(request)}) + "\n")
        answer = kind[1]().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()

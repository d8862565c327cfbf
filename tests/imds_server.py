#!/usr/bin/python3
"""tests/imds_server.py: a loopback stand-in for the EC2 instance metadata
service (IMDSv2), for tests only.  Listens on 127.0.0.1 at an ephemeral port,
writes the port to PORTFILE, serves until killed.

  imds_server.py MODE PORTFILE
  MODE ok        PUT /latest/api/token (needs X-aws-ec2-metadata-token-ttl-seconds)
                 gives a token; GET /latest/meta-data/instance-type and
                 instance-id need that token (401 without it)
       404       every request gets 404
       silent    accepts connections and never answers
       oversized the token response is 1 MiB long
       bigtoken  the token is 600 bytes (past the probe's 511-byte token bound)
"""
import http.server
import socket
import sys
import time

TOKEN = "AQAEAFakeTokenForTests0123456789abcdefghij=="
META = {"/latest/meta-data/instance-type": "trn2.48xlarge",
        "/latest/meta-data/instance-id": "i-0123456789abcdef0"}
mode, portfile = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        if mode == "404":
            return self.reply(404, "not found")
        if mode == "oversized":
            return self.reply(200, "x" * (1 << 20))
        if mode == "bigtoken":
            return self.reply(200, "t" * 600)
        if self.path != "/latest/api/token" or \
                not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            return self.reply(400, "bad request")
        self.reply(200, TOKEN)

    def do_GET(self):
        if mode == "404":
            return self.reply(404, "not found")
        if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
            return self.reply(401, "unauthorized")
        if self.path not in META:
            return self.reply(404, "not found")
        self.reply(200, META[self.path])


if mode == "silent":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    open(portfile, "w").write(str(s.getsockname()[1]))
    held = []
    while True:
        c, _ = s.accept()
        held.append(c)          # never answer
else:
    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    open(portfile, "w").write(str(srv.server_address[1]))
    srv.serve_forever()

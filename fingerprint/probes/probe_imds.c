/* fingerprint/probes/probe_imds.c: the EC2 instance metadata service, IMDSv2,
 * only when asked (--imds): PUT /latest/api/token with
 * X-aws-ec2-metadata-token-ttl-seconds, then GET
 * /latest/meta-data/instance-type and /latest/meta-data/instance-id with
 * X-aws-ec2-metadata-token (AWS EC2 User Guide, "Use IMDSv2"; doc/DOMAIN.md
 * section 6).  Plain HTTP/1.1 over a socket to a numeric HOST:PORT (no name
 * lookup), each request bounded in time (connect, send and receive share
 * ctx->imds_timeout_ms, waited with poll(2)) and in size (IMDS_RESPONSE_MAX).
 * Fills host.cloud, host.instance_type, host.instance_family and
 * host.instance_id only where the dmi probe found nothing.  Any failure is a
 * warning.  Must not: use the network unless ctx->imds; fall back to IMDSv1;
 * follow redirects. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define IMDS_RESPONSE_MAX 16384          /* bytes of one response, headers included */
#define IMDS_TOKEN_MAX 512               /* bytes of a session token */
#define IMDS_TOKEN_TTL "60"              /* seconds the token lives */

struct endpoint {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char text[128];                      /* "127.0.0.1:8080", for evidence */
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "a.b.c.d:port" or "[v6]:port", numeric only. */
static int parse_endpoint(const char *s, struct endpoint *ep)
{
    char host[80], port[16];
    const char *colon, *spec = s;
    size_t hl;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (close == NULL || close[1] != ':')
            return -1;
        hl = (size_t)(close - s - 1);
        s++;
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (colon == NULL)
            return -1;
        hl = (size_t)(colon - s);
    }
    if (hl == 0 || hl >= sizeof host || strlen(colon + 1) == 0 ||
        strlen(colon + 1) >= sizeof port || strspn(colon + 1, "0123456789") != strlen(colon + 1))
        return -1;
    memcpy(host, s, hl);
    host[hl] = '\0';
    snprintf(port, sizeof port, "%s", colon + 1);
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, port, &hints, &res) != 0 || res == NULL)
        return -1;
    memcpy(&ep->addr, res->ai_addr, res->ai_addrlen);
    ep->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    snprintf(ep->text, sizeof ep->text, "%s", spec);
    return 0;
}

/* Wait for EVENTS on FD until DEADLINE; 0, or -1 with errno ETIMEDOUT. */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pfd = { .fd = fd, .events = events };
        int n = poll(&pfd, 1, (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* A non-blocking TCP connection to EP, established by DEADLINE; the
 * descriptor, or -1 with errno (ETIMEDOUT). */
static int http_connect(const struct endpoint *ep, long long deadline)
{
    int fd = socket(ep->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (const struct sockaddr *)&ep->addr, ep->addrlen) == 0)
        return fd;
    int err = errno;
    socklen_t el = sizeof err;
    if (err == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)
        return fd;
    if (err != EINPROGRESS)
        errno = err;                  /* else errno is wait_fd's or getsockopt's */
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Send N bytes of REQ on FD by DEADLINE; 0, or -1 with errno. */
static int http_send(int fd, const char *req, size_t n, long long deadline)
{
    for (size_t sent = 0; sent < n;) {
        if (wait_fd(fd, POLLOUT, deadline) != 0)
            return -1;
        ssize_t w = send(fd, req + sent, n - sent, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        if (w > 0)
            sent += (size_t)w;
    }
    return 0;
}

/* The response on FD into RESP (IMDS_RESPONSE_MAX + 1 bytes), until the
 * peer closes or Content-Length bytes of body are in; *GOT its length.
 * 0; -1 with errno; 1 with WHY set (too large). */
static int http_recv(int fd, long long deadline, char *resp, size_t *got, char *why,
                     size_t whysz)
{
    for (;;) {
        if (wait_fd(fd, POLLIN, deadline) != 0)
            return -1;
        ssize_t r = recv(fd, resp + *got, IMDS_RESPONSE_MAX + 1 - *got, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        *got += (size_t)r;
        if (*got > IMDS_RESPONSE_MAX) {
            snprintf(why, whysz, "response larger than %d bytes", IMDS_RESPONSE_MAX);
            return 1;
        }
        resp[*got] = '\0';
        /* stop early once Content-Length bytes of body are in */
        char *hend = strstr(resp, "\r\n\r\n");
        const char *cl = hend ? strcasestr(resp, "\r\nContent-Length:") : NULL;
        if (hend && cl && cl < hend &&
            *got - (size_t)(hend + 4 - resp) >= strtoul(cl + 17, NULL, 10))
            return 0;
    }
}

/* RESP (GOT bytes, NUL-terminated) as an HTTP/1.1 response (RFC 9112):
 * *STATUS, and the body (Content-Length bytes when given) into BODY.  0, or
 * -1 with WHY set. */
static int http_parse(char *resp, size_t got, int *status, char *body, size_t bodysz,
                      char *why, size_t whysz)
{
    int major, minor;
    if (sscanf(resp, "HTTP/%d.%d %d", &major, &minor, status) != 3) {
        snprintf(why, whysz, "not an HTTP response");
        return -1;
    }
    char *hend = strstr(resp, "\r\n\r\n");
    if (hend == NULL) {
        snprintf(why, whysz, "response headers not terminated");
        return -1;
    }
    *hend = '\0';
    if (strcasestr(resp, "\r\nTransfer-Encoding:")) {
        snprintf(why, whysz, "chunked responses are not supported");
        return -1;
    }
    const char *b = hend + 4;
    size_t bl = got - (size_t)(b - resp);
    const char *cl = strcasestr(resp, "\r\nContent-Length:");
    if (cl) {
        unsigned long want = strtoul(cl + 17, NULL, 10);
        if (want > bl) {
            snprintf(why, whysz, "response body shorter than its Content-Length");
            return -1;
        }
        bl = want;
    }
    if (bl >= bodysz) {
        snprintf(why, whysz, "response body longer than %zu bytes", bodysz - 1);
        return -1;
    }
    memcpy(body, b, bl);
    body[bl] = '\0';
    return 0;
}

/* One HTTP/1.1 exchange.  On 0, *STATUS is the HTTP status and BODY (BODYSZ
 * bytes) holds the body, NUL-terminated.  On -1, WHY says what failed. */
static int http(const struct endpoint *ep, int timeout_ms, const char *method,
                const char *path, const char *header, int *status, char *body,
                size_t bodysz, char *why, size_t whysz)
{
    char req[1024], *resp = NULL;
    long long deadline = now_ms() + timeout_ms;
    int fd = -1, rc = -1;
    size_t got = 0;
    int n = snprintf(req, sizeof req,
                     "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: stackprint/" SP_VERSION
                     "\r\nAccept: */*\r\nConnection: close\r\n%s\r\n%s\r\n\r\n",
                     method, path, ep->text, header,
                     strcmp(method, "PUT") == 0 ? "Content-Length: 0" : "Accept-Encoding: identity");
    if (n < 0 || (size_t)n >= sizeof req) {
        snprintf(why, whysz, "request too long");
        return -1;
    }
    if ((fd = http_connect(ep, deadline)) < 0 || http_send(fd, req, (size_t)n, deadline) != 0 ||
        (resp = malloc(IMDS_RESPONSE_MAX + 1)) == NULL)
        goto sys;
    int r = http_recv(fd, deadline, resp, &got, why, whysz);
    if (r < 0)
        goto sys;
    if (r == 0) {
        resp[got] = '\0';
        rc = http_parse(resp, got, status, body, bodysz, why, whysz);
    }
    goto out;
sys:
    snprintf(why, whysz, "%s", errno == ETIMEDOUT ? "timed out" : strerror(errno));
out:
    free(resp);
    if (fd >= 0)
        close(fd);
    return rc;
}

static int printable(const char *s)
{
    for (; *s; s++)
        if (*s < 0x21 || *s > 0x7e)
            return 0;
    return 1;
}

int probe_imds(struct probe_ctx *ctx, struct sp_error *e)
{
    if (!ctx->imds)
        return 0;
    struct endpoint ep;
    const char *spec = ctx->imds_endpoint ? ctx->imds_endpoint : SP_IMDS_ENDPOINT_DEFAULT;
    int timeout = ctx->imds_timeout_ms > 0 ? ctx->imds_timeout_ms : SP_IMDS_TIMEOUT_MS_DEFAULT;
    char token[IMDS_TOKEN_MAX], body[256], why[128], header[IMDS_TOKEN_MAX + 64], ev[256];
    int status = 0;

    if (parse_endpoint(spec, &ep) != 0) {
        factset_warn(ctx->facts, "imds: endpoint '%.100s' is not a numeric HOST:PORT; "
                     "not queried", spec);
        return 0;
    }
    if (!ctx->root->live)
        factset_warn(ctx->facts, "imds: %s: instance metadata describes the machine running "
                     "stackprint, not necessarily %s", ep.text, ctx->root->subject);
    if (http(&ep, timeout, "PUT", "/latest/api/token",
             "X-aws-ec2-metadata-token-ttl-seconds: " IMDS_TOKEN_TTL, &status, token,
             sizeof token, why, sizeof why) != 0) {
        factset_warn(ctx->facts, "imds: http://%s/latest/api/token: %s", ep.text, why);
        return 0;
    }
    if (status != 200 || token[0] == '\0' || !printable(token)) {
        factset_warn(ctx->facts, "imds: http://%s/latest/api/token: HTTP %d%s", ep.text,
                     status, status == 200 ? ", malformed token" : "");
        return 0;
    }
    snprintf(header, sizeof header, "X-aws-ec2-metadata-token: %s", token);
    static const char *const items[] = { "instance-type", "instance-id" };
    for (size_t i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof path, "/latest/meta-data/%s", items[i]);
        snprintf(ev, sizeof ev, "imds http://%s%s", ep.text, path);
        if (http(&ep, timeout, "GET", path, header, &status, body, sizeof body, why,
                 sizeof why) != 0) {
            factset_warn(ctx->facts, "imds: http://%s%s: %s", ep.text, path, why);
            continue;
        }
        if (status != 200) {
            factset_warn(ctx->facts, "imds: http://%s%s: HTTP %d", ep.text, path, status);
            continue;
        }
        int valid = i == 0 ? instance_type_valid(body) : instance_id_valid(body);
        if (!valid) {
            factset_warn(ctx->facts, "imds: http://%s%s: malformed value '%.64s'", ep.text,
                         path, body);
            continue;
        }
        const char *key = i == 0 ? "host.instance_type" : "host.instance_id";
        const char *have = factset_get(ctx->facts, key);
        if (have) {
            if (strcmp(have, body) != 0)
                factset_warn(ctx->facts, "%s: %s says '%s', DMI '%s'; DMI kept", key, ev,
                             body, have);
            continue;
        }
        if ((i == 0 ? probe_set_instance(ctx, body, ev) : probe_set(ctx, key, body, ev)) != 0)
            goto nomem;
        if (factset_get(ctx->facts, "host.cloud") == NULL &&
            probe_set(ctx, "host.cloud", "aws", ev) != 0)
            goto nomem;
    }
    return 0;
nomem:
    return sp_fail(e, SP_EXIT_INPUT, "imds: out of memory");
}

/* checks/fix_report.c: a remediation plan as text, JSON or markdown
 * (checks/fix.h).  The shell block joins consecutive steps of one tool into
 * one command ("apt-get install -y 'a=1*' 'b=2*'"); steps whose command is a
 * note in parentheses (a fact that follows another step) are listed, never
 * run.  Nothing here decides; it only renders. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/fix.h"
#include "checks/report.h"

/* The part of COMMAND before its last word (the package), as a length:
 * steps whose prefixes are equal join into one command.  The last word
 * never holds a space (package names and versions have none). */
static size_t prefix_len(const char *command)
{
    const char *q = strrchr(command, ' ');
    return q ? (size_t)(q - command) : strlen(command);
}

static int is_note(const char *command)
{
    return command[0] == '(';
}

/* The commands, joined per tool, one per line, each prefixed by INDENT. */
static void shell_block(FILE *fp, const struct sp_fix_plan *p, const char *indent)
{
    for (size_t i = 0; i < p->n; i++) {
        const char *c = p->steps[i].command;
        if (is_note(c))
            continue;
        size_t pl = prefix_len(c);
        fprintf(fp, "%s%s", indent, c);
        while (c[pl] != '\0' && i + 1 < p->n && !is_note(p->steps[i + 1].command) &&
               prefix_len(p->steps[i + 1].command) == pl &&
               strncmp(p->steps[i + 1].command, c, pl) == 0 &&
               p->steps[i + 1].group == p->steps[i].group) {
            i++;
            fputs(p->steps[i].command + pl, fp);
        }
        fputc('\n', fp);
    }
}

/* S with every control character written \xNN, malloc'd ("" for NULL;
 * NULL when out of memory): a manifest's values reach the terminal. */
static char *esc(const char *s)
{
    if (s == NULL)
        return strdup("");
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += ((unsigned char)*p < 0x20 || *p == 0x7f) ? 4 : 1;
    char *out = malloc(n), *o = out;
    for (const char *p = s; out && *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            o += sprintf(o, "\\x%02x", (unsigned char)*p);
        else
            *o++ = *p;
    }
    if (out)
        *o = '\0';
    return out;
}

/* A copy of P whose strings are escaped with esc(); free with
 * plan_escaped_free().  -1 when out of memory. */
static int plan_escaped(const struct sp_fix_plan *p, struct sp_fix_plan *q)
{
    memset(q, 0, sizeof *q);
    q->passes = p->passes;
    q->release = p->release ? esc(p->release) : NULL;
    q->reason = p->reason ? esc(p->reason) : NULL;
    q->steps = calloc(p->n ? p->n : 1, sizeof *q->steps);
    if (q->steps == NULL || (p->release && !q->release) || (p->reason && !q->reason))
        return -1;
    for (size_t i = 0; i < p->n; i++, q->n++) {
        const struct sp_fix_step *a = &p->steps[i];
        struct sp_fix_step *b = &q->steps[i];
        b->group = a->group;
        b->key = esc(a->key);
        b->installed = a->installed ? esc(a->installed) : NULL;
        b->target = a->target ? esc(a->target) : NULL;
        b->command = esc(a->command);
        if (!b->key || !b->command || (a->installed && !b->installed) || (a->target && !b->target)) {
            q->n++;
            return -1;
        }
    }
    return 0;
}

static const char *action(const struct sp_fix_step *s)
{
    return s->target ? "install" : "remove";
}

static void text(FILE *fp, const struct sp_fix_plan *p)
{
    if (p->passes) {
        fprintf(fp, "\nRemediation plan: nothing to change (%s)\n", p->reason ? p->reason : "");
        return;
    }
    if (p->release == NULL) {
        fprintf(fp, "\nRemediation plan: none: %s\n", p->reason ? p->reason : "no release fits");
        return;
    }
    fprintf(fp, "\nRemediation plan: Neuron %s (%s)\n", p->release, p->reason ? p->reason : "");
    if (p->n == 0) {
        fprintf(fp, "Nothing to change: every component is already the release's.\n");
        return;
    }
    size_t wk = 3, wi = 9;
    for (size_t i = 0; i < p->n; i++) {
        size_t a = strlen(p->steps[i].key), b = p->steps[i].installed ? strlen(p->steps[i].installed) : 1;
        wk = a > wk ? a : wk;
        wi = b > wi ? b : wi;
    }
    fprintf(fp, "%-*s  %-*s  %s\n", (int)wk, "KEY", (int)wi, "INSTALLED", "TARGET");
    for (size_t i = 0; i < p->n; i++) {
        const struct sp_fix_step *s = &p->steps[i];
        fprintf(fp, "%-*s  %-*s  %s%s\n", (int)wk, s->key, (int)wi, s->installed ? s->installed : "-",
                s->target ? s->target : "(removed)", is_note(s->command) ? "  " : "");
        if (is_note(s->command))
            fprintf(fp, "%-*s  %s\n", (int)wk, "", s->command);
    }
    fprintf(fp, "\nCommands, in this order (stackprint runs none of them):\n\n");
    shell_block(fp, p, "    ");
}

static void markdown(FILE *fp, const struct sp_fix_plan *p)
{
    if (p->passes) {
        fprintf(fp, "### Remediation plan: nothing to change\n\n%s.\n", p->reason ? p->reason : "");
        return;
    }
    if (p->release == NULL) {
        fprintf(fp, "### Remediation plan: none\n\n%s\n", p->reason ? p->reason : "no release fits");
        return;
    }
    fprintf(fp, "### Remediation plan: Neuron %s\n\n%s.\n\n", p->release, p->reason ? p->reason : "");
    if (p->n == 0) {
        fprintf(fp, "Nothing to change.\n");
        return;
    }
    fprintf(fp, "| key | installed | target | action |\n|---|---|---|---|\n");
    for (size_t i = 0; i < p->n; i++) {
        const struct sp_fix_step *s = &p->steps[i];
        fprintf(fp, "| `%s` | %s | %s | %s |\n", s->key, s->installed ? s->installed : "-",
                s->target ? s->target : "-", action(s));
    }
    fprintf(fp, "\n```sh\n");
    shell_block(fp, p, "");
    fprintf(fp, "```\n");
}

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* {"plan": {"release", "reason", "steps": [...]}} */
static json_t *plan_json(const struct sp_fix_plan *p)
{
    json_t *steps = json_array(), *plan = json_object(), *doc = json_object();
    if (steps == NULL || plan == NULL || doc == NULL) {
        json_decref(steps);
        json_decref(plan);
        json_decref(doc);
        return NULL;
    }
    for (size_t i = 0; i < p->n; i++) {
        const struct sp_fix_step *s = &p->steps[i];
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(s->key));
        json_object_set_new(o, "installed", text_or_null(s->installed));
        json_object_set_new(o, "target", text_or_null(s->target));
        json_object_set_new(o, "action", json_string(action(s)));
        json_object_set_new(o, "command", json_string(s->command));
        json_array_append_new(steps, o);
    }
    json_object_set_new(plan, "passes", json_boolean(p->passes));
    json_object_set_new(plan, "release", text_or_null(p->release));
    json_object_set_new(plan, "reason", text_or_null(p->reason));
    json_object_set_new(plan, "steps", steps);
    json_object_set_new(doc, "plan", plan);
    return doc;
}

struct fix_job {
    const struct sp_fix_plan *plan;
    enum sp_fix_format format;
};

static int write_fix(FILE *fp, const void *arg)
{
    const struct fix_job *j = arg;
    int ok = 1;
    if (j->format != SP_FIX_JSON) {
        struct sp_fix_plan q;
        ok = plan_escaped(j->plan, &q) == 0;
        if (ok && j->format == SP_FIX_TEXT)
            text(fp, &q);
        else if (ok)
            markdown(fp, &q);
        sp_fix_free(&q);
    } else {
        json_t *doc = plan_json(j->plan);
        ok = doc && json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
             fputc('\n', fp) != EOF;
        json_decref(doc);
    }
    return ok ? 0 : -1;
}

int sp_fix_render(const struct sp_fix_plan *plan, enum sp_fix_format format, char **out,
                  size_t *len, struct sp_error *e)
{
    char nomem[64];
    const struct fix_job j = { plan, format };
    snprintf(nomem, sizeof nomem, "check --fix: %s", strerror(ENOMEM));
    return sp_render_buffer(write_fix, &j, nomem, nomem, out, len, e);
}

// A compiled sign-in driver: browsers that make whole Google sign-ins through the sandbox (login → consent page →
// consent → callback) with libcurl. Two uses:
// - the traffic mix (Benchmarks/mix_bench.py): paced to a stated rate for S seconds, a pool of 100 returning
//   subjects, and a logout after every N sign-ins. The Python browsers it replaces made about 30 sign-ins/s
//   with the client core full, which kept the mix from reaching its ratio at full check speed;
// - the memory table (Benchmarks/memory_bench.py): `--count N` sign-ins as fast as the threads go, each a new
//   subject, to leave N live sessions; `--login URL` starts them at another relying party (mod_auth_openidc's
//   protected location), since every sign-in is a redirect to the sandbox and back.
//
// usage: signin_driver --url APP --sandbox SANDBOX (--rate PER_SECOND --seconds S | --count N) [--threads N]
//                      [--per-logout N] [--subject-base N] [--login URL]
// Prints one JSON object: {"signins": started, "completed": n, "logouts": n, "failures": n, "errors": [...]}.
// Session cookies are kept in memory only, for the logouts, and never printed.
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEPT 4096
#define MAX_ERRORS 5

static const char *app_url, *sandbox_url, *login_url;
static double rate, seconds, started_at;
static long count;  // when > 0: this many sign-ins, unpaced, each a new subject
static long per_logout = 1000000000L, subject_base = 500000000000000000L;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long started, completed, logouts, failures;
static char *kept[MAX_KEPT];  // session cookies kept for a later logout, oldest first
static int kept_count;
static char errors[MAX_ERRORS][200];
static int error_count;

struct buffer {
    char *data;
    size_t length;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t collect(char *data, size_t size, size_t count, void *context) {
    struct buffer *buffer = context;
    size_t more = size * count;
    char *grown = realloc(buffer->data, buffer->length + more + 1);
    if (!grown) return 0;
    memcpy(grown + buffer->length, data, more);
    buffer->data = grown;
    buffer->length += more;
    buffer->data[buffer->length] = 0;
    return more;
}

static void fail(const char *fmt, const char *detail, long status) {
    pthread_mutex_lock(&lock);
    failures++;
    if (error_count < MAX_ERRORS) snprintf(errors[error_count++], sizeof errors[0], fmt, detail, status);
    pthread_mutex_unlock(&lock);
}

// One request; `status` gets the HTTP status, `location` (when not NULL) a copy of the redirect target.
static int request(CURL *curl, const char *url, const char *post, struct curl_slist *headers,
                   struct buffer *body, long *status, char **location) {
    body->length = 0;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (post) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post);
    } else {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
    if (curl_easy_perform(curl) != CURLE_OK) return -1;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    if (location) {
        char *target = NULL;
        curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &target);
        *location = target ? strdup(target) : NULL;
    }
    return 0;
}

// The text between `start` and the next double quote after it, HTML entities of an attribute decoded.
static char *attribute(const char *page, const char *start) {
    const char *from = page ? strstr(page, start) : NULL;
    if (!from) return NULL;
    from += strlen(start);
    const char *to = strchr(from, '"');
    if (!to) return NULL;
    char *out = malloc((size_t)(to - from) + 1), *write = out;
    static const char *entities[][2] = {{"&amp;", "&"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&#x27;", "'"},
                                        {"&lt;", "<"}, {"&gt;", ">"}};
    while (from < to) {
        int matched = 0;
        for (size_t i = 0; i < sizeof entities / sizeof entities[0] && *from == '&'; i++) {
            size_t n = strlen(entities[i][0]);
            if ((size_t)(to - from) >= n && strncmp(from, entities[i][0], n) == 0) {
                *write++ = entities[i][1][0];
                from += n;
                matched = 1;
                break;
            }
        }
        if (!matched) *write++ = *from++;
    }
    *write = 0;
    return out;
}

// "authflow_session=VALUE" from the handle's cookie jar, or NULL.
static char *session_cookie(CURL *curl) {
    struct curl_slist *cookies = NULL, *item;
    char *found = NULL;
    curl_easy_getinfo(curl, CURLINFO_COOKIELIST, &cookies);
    for (item = cookies; item && !found; item = item->next) {
        // Netscape format: domain, subdomains, path, secure, expiry, name, value (tab-separated).
        const char *field = item->data;
        for (int i = 0; i < 5 && field; i++) field = strchr(field, '\t') ? strchr(field, '\t') + 1 : NULL;
        if (field && strncmp(field, "authflow_session\t", 17) == 0) {
            size_t length = strlen(field + 17);
            found = malloc(length + 18);
            snprintf(found, length + 18, "authflow_session=%s", field + 17);
        }
    }
    curl_slist_free_all(cookies);
    return found;
}

static int sign_in(CURL *curl, long subject, struct buffer *body) {
    char url[2048], *location = NULL, *callback = NULL, *action = NULL, *ticket = NULL, *post = NULL;
    long status = 0;
    int ok = 0;
    struct curl_slist *origin = NULL, *navigate = NULL;
    char origin_header[600];
    snprintf(origin_header, sizeof origin_header, "Origin: %s", sandbox_url);
    origin = curl_slist_append(NULL, origin_header);
    navigate = curl_slist_append(curl_slist_append(NULL, "Sec-Fetch-Site: cross-site"), "Sec-Fetch-Mode: navigate");
    curl_easy_setopt(curl, CURLOPT_COOKIELIST, "ALL");  // a new browser each time
    if (login_url) {
        snprintf(url, sizeof url, "%s", login_url);
    } else {
        snprintf(url, sizeof url, "%s/auth/google/login?return_to=/", app_url);
    }
    if (request(curl, url, NULL, NULL, body, &status, &location) || (status != 302 && status != 303) || !location ||
        strncmp(location, sandbox_url, strlen(sandbox_url)) != 0) {
        fail("login: expected a redirect to the sandbox (%s), found %ld", "start", status);
        goto done;
    }
    if (request(curl, location, NULL, NULL, body, &status, NULL) || status != 200 ||
        !(action = attribute(body->data, "<form method=\"post\" action=\"")) ||
        !(ticket = attribute(body->data, "name=\"ticket\" value=\""))) {
        fail("consent page: expected a form with a ticket (%s), found %ld", "page", status);
        goto done;
    }
    char *escaped = curl_easy_escape(curl, ticket, 0);
    size_t length = strlen(escaped) + 256;
    post = malloc(length);
    snprintf(post, length,
             "ticket=%s&identity=custom&subject=%ld&email=bench-%ld%%40example.com&email_verified=true"
             "&name=Bench+User&decision=allow",
             escaped, subject, subject);
    curl_free(escaped);
    if (request(curl, action, post, origin, body, &status, &callback) || (status != 302 && status != 303) ||
        !callback) {
        fail("consent: expected a redirect to the app (%s), found %ld", "consent", status);
        goto done;
    }
    if (request(curl, callback, NULL, navigate, body, &status, NULL) || (status != 302 && status != 303)) {
        fail("callback: expected a redirect (%s), found %ld", "callback", status);
        goto done;
    }
    ok = 1;
done:
    free(location);
    free(callback);
    free(action);
    free(ticket);
    free(post);
    curl_slist_free_all(origin);
    curl_slist_free_all(navigate);
    return ok;
}

static void log_out(CURL *curl, char *cookie, struct buffer *body) {
    char url[2048], origin_header[600];
    long status = 0;
    snprintf(url, sizeof url, "%s/auth/logout", app_url);
    snprintf(origin_header, sizeof origin_header, "Origin: %s", app_url);
    struct curl_slist *headers = curl_slist_append(NULL, origin_header);
    curl_easy_setopt(curl, CURLOPT_COOKIELIST, "ALL");
    curl_easy_setopt(curl, CURLOPT_COOKIE, cookie);
    int failed = request(curl, url, "", headers, body, &status, NULL);
    curl_easy_setopt(curl, CURLOPT_COOKIE, NULL);
    curl_slist_free_all(headers);
    if (failed || (status != 204 && status != 302 && status != 303)) {
        fail("logout: expected 204 or a redirect (%s), found %ld", "logout", status);
        return;
    }
    pthread_mutex_lock(&lock);
    logouts++;
    pthread_mutex_unlock(&lock);
}

static void *work(void *unused) {
    (void)unused;
    CURL *curl = curl_easy_init();
    struct buffer body = {malloc(1), 0};
    curl_easy_setopt(curl, CURLOPT_COOKIEFILE, "");  // the cookie engine, in memory
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    while (count > 0 || now() - started_at < seconds) {
        long number = 0;
        pthread_mutex_lock(&lock);
        if (count > 0 ? started < count : rate * (now() - started_at) > (double)started) number = ++started;
        pthread_mutex_unlock(&lock);
        if (!number && count > 0) break;
        if (!number) {
            struct timespec pause = {0, 1000000};  // pacing: a driver, not a test
            nanosleep(&pause, NULL);
            continue;
        }
        // Paced: returning users from a pool of 100 subjects, so most sign-ins find their account. Counted: a new
        // subject each time, so each sign-in leaves an account and a session of its own.
        if (!sign_in(curl, subject_base + (count > 0 ? number : number % 100), &body)) continue;
        char *cookie = session_cookie(curl), *leaving = NULL;
        pthread_mutex_lock(&lock);
        completed++;
        if (cookie && kept_count < MAX_KEPT) {
            kept[kept_count++] = cookie;
            cookie = NULL;
        }
        if (number % per_logout == 0 && kept_count > 0) {
            leaving = kept[0];
            memmove(kept, kept + 1, (size_t)(--kept_count) * sizeof kept[0]);
        }
        pthread_mutex_unlock(&lock);
        free(cookie);
        if (leaving) {
            log_out(curl, leaving, &body);
            free(leaving);
        }
    }
    free(body.data);
    curl_easy_cleanup(curl);
    return NULL;
}

int main(int argc, char **argv) {
    long threads = 4;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--url")) app_url = argv[i + 1];
        else if (!strcmp(argv[i], "--sandbox")) sandbox_url = argv[i + 1];
        else if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--per-logout")) per_logout = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--subject-base")) subject_base = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--count")) count = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--login")) login_url = argv[i + 1];
        else {
            fprintf(stderr, "signin_driver: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    int paced = rate > 0 && seconds > 0;
    if (!app_url || !sandbox_url || paced == (count > 0) || count < 0 || threads < 1 || threads > 256 ||
        per_logout < 1) {
        fprintf(stderr, "usage: signin_driver --url APP --sandbox SANDBOX (--rate R --seconds S | --count N) "
                        "[--threads N] [--per-logout N] [--subject-base N] [--login URL] (rate and seconds > 0, "
                        "or a count > 0; 1-256 threads)\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    pthread_t workers[256];
    started_at = now();
    for (long i = 0; i < threads; i++) pthread_create(&workers[i], NULL, work, NULL);
    for (long i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    printf("{\"signins\": %ld, \"completed\": %ld, \"logouts\": %ld, \"failures\": %ld, \"errors\": [", started,
           completed, logouts, failures);
    for (int i = 0; i < error_count; i++) printf("%s\"%s\"", i ? ", " : "", errors[i]);
    printf("]}\n");
    for (int i = 0; i < kept_count; i++) free(kept[i]);
    curl_global_cleanup();
    return 0;
}

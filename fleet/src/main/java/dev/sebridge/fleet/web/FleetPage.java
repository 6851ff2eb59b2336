package dev.sebridge.fleet.web;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import com.sun.net.httpserver.HttpExchange;
import dev.sebridge.fleet.api.ApiException;
import dev.sebridge.fleet.api.ApprovalRequests;
import dev.sebridge.fleet.api.FleetServer;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.api.RolloutRequests;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The web page (docs/fleet.md, "The page"): server-rendered HTML with htmx from a webjar, kept live
 * by {@link LiveStream}. Reads go through {@link PageModel}; actions through the same {@link
 * ApprovalRequests} and {@link RolloutRequests} as the API, so the page can do nothing the API
 * would refuse. Signed in with the API's tokens ({@link WebSession}); approvers alone see and may
 * use the action forms, and every action needs a reason and the CSRF header.
 */
public final class FleetPage implements FleetServer.Route {
  private static final Pattern VM = Pattern.compile("/ui/vms/([^/]+)");
  private static final Pattern EVENT_ACTIONS = Pattern.compile("/ui/events/([^/]+)/actions");
  private static final Pattern EVENT_POST = Pattern.compile("/ui/events/([^/]+)/(approve|rollout)");
  private static final Pattern ROLLOUT_ACTIONS = Pattern.compile("/ui/rollouts/([^/]+)/actions");
  private static final Pattern ROLLOUT_POST =
      Pattern.compile("/ui/rollouts/([^/]+)/(resume|skip|abort)");
  private static final Map<String, String[]> STATIC =
      Map.of(
          "/ui/static/htmx.min.js",
          new String[] {
            "META-INF/resources/webjars/htmx.org/2.0.4/dist/htmx.min.js", "text/javascript"
          },
          "/ui/static/sse.js",
          new String[] {"META-INF/resources/webjars/htmx-ext-sse/2.2.2/sse.js", "text/javascript"},
          "/ui/static/app.js",
          new String[] {"dev/sebridge/fleet/web/app.js", "text/javascript"},
          "/ui/static/app.css",
          new String[] {"dev/sebridge/fleet/web/app.css", "text/css"});

  private final WebSession session;
  private final PageModel model;
  private final PageActions actions;
  private final LiveStream live;
  private final MustacheFactory templates = new DefaultMustacheFactory("dev/sebridge/fleet/web");

  public FleetPage(
      Authenticator auth,
      FleetViews views,
      ApprovalRequests approvals,
      RolloutRequests rollouts,
      LiveStream live) {
    this.session = new WebSession(auth);
    this.model = new PageModel(views);
    this.actions = new PageActions(views, model, approvals, rollouts);
    this.live = live;
  }

  @Override
  public boolean handle(HttpExchange ex, String path, Optional<Principal> bearer)
      throws IOException {
    String method = FleetServer.method(ex);
    if (path.equals("/") && method.equals("GET")) {
      redirect(ex, "/ui/");
      return true;
    }
    if (!path.startsWith("/ui/") && !path.equals("/ui")) {
      return false;
    }
    if (STATIC.containsKey(path)) {
      asset(ex, STATIC.get(path));
      return true;
    }
    if (path.equals("/ui/login")) {
      login(ex, method);
      return true;
    }
    Optional<WebSession.Signed> signed = session.signedIn(ex);
    if (signed.isEmpty()) {
      if (method.equals("GET") && (path.equals("/ui/") || path.equals("/ui"))) {
        redirect(ex, "/ui/login");
      } else {
        html(
            ex, 401, render("message.mustache", Map.of("error", "Sign in again: no valid token.")));
      }
      return true;
    }
    WebSession.Signed s = signed.get();
    if (method.equals("POST") && !WebSession.sameSite(ex, s)) {
      html(ex, 403, render("message.mustache", Map.of("error", "Refused: no valid CSRF token.")));
      return true;
    }
    try {
      route(ex, path, method, s);
    } catch (ApiException e) {
      html(ex, e.status(), render("message.mustache", Map.of("error", e.getMessage())));
    }
    return true;
  }

  private void route(HttpExchange ex, String path, String method, WebSession.Signed s)
      throws IOException {
    Principal p = s.principal();
    Matcher m;
    if ((path.equals("/ui/") || path.equals("/ui")) && method.equals("GET")) {
      Map<String, Object> page = new HashMap<>();
      page.put("user", p.name());
      page.put("role", p.role().mayApprove() ? "approver" : "reader");
      page.put("approver", p.role().mayApprove());
      page.put("csrf", s.csrf());
      html(ex, 200, render("page.mustache", page));
    } else if (path.equals("/ui/logout") && method.equals("POST")) {
      ex.getResponseHeaders().add("Set-Cookie", WebSession.clearCookie());
      ex.getResponseHeaders().set("HX-Redirect", "/ui/login");
      html(ex, 200, "");
    } else if (path.equals("/ui/stream") && ex.getRequestMethod().equals("GET")) {
      live.serve(ex);
    } else if (path.startsWith("/ui/fragment/") && method.equals("GET")) {
      fragment(ex, path.substring("/ui/fragment/".length()), p);
    } else if ((m = VM.matcher(path)).matches() && method.equals("GET")) {
      html(ex, 200, render("vm.mustache", model.vm(actions.vm(FleetServer.segment(m.group(1))))));
    } else if ((m = EVENT_ACTIONS.matcher(path)).matches() && method.equals("GET")) {
      html(
          ex,
          200,
          render("event-actions.mustache", actions.eventForms(FleetServer.segment(m.group(1)), p)));
    } else if ((m = ROLLOUT_ACTIONS.matcher(path)).matches() && method.equals("GET")) {
      html(
          ex,
          200,
          render(
              "rollout-actions.mustache",
              actions.rolloutForms(FleetServer.segment(m.group(1)), p)));
    } else if ((m = EVENT_POST.matcher(path)).matches() && method.equals("POST")) {
      String done = actions.onEvent(FleetServer.segment(m.group(1)), m.group(2), form(ex), p);
      html(ex, 200, render("message.mustache", Map.of("text", done)));
    } else if ((m = ROLLOUT_POST.matcher(path)).matches() && method.equals("POST")) {
      String done = actions.onRollout(FleetServer.segment(m.group(1)), m.group(2), form(ex), p);
      html(ex, 200, render("message.mustache", Map.of("text", done)));
    } else {
      throw new ApiException(404, "no such page: " + method + " " + path);
    }
  }

  private void fragment(HttpExchange ex, String name, Principal p) throws IOException {
    Map<String, Object> m = new HashMap<>();
    m.put("approver", p.role().mayApprove());
    switch (name) {
      case "events" -> m.put("events", model.openEvents());
      case "rollouts" -> m.put("rollouts", model.rollouts());
      case "silent" -> m.put("silent", model.silent());
      case "approvals" -> m.put("approvals", model.approvals());
      default -> throw new ApiException(404, "no such fragment: " + name);
    }
    m.put("empty", ((java.util.List<?>) m.get(name)).isEmpty());
    html(ex, 200, render(name + ".mustache", m));
  }

  private void login(HttpExchange ex, String method) throws IOException {
    if (method.equals("POST")) {
      String token = form(ex).getOrDefault("token", "").trim();
      if (token.matches("[A-Za-z0-9._~+/=-]{1,4000}")) {
        Optional<Principal> p = session.authenticate(token);
        if (p.isPresent()) {
          ex.getResponseHeaders().add("Set-Cookie", WebSession.setCookie(ex, token));
          redirect(ex, "/ui/");
          return;
        }
      }
      html(ex, 401, render("login.mustache", Map.of("error", "That token is not valid here.")));
    } else {
      html(ex, 200, render("login.mustache", Map.of()));
    }
  }

  private static Map<String, String> form(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readNBytes(64 * 1024), StandardCharsets.UTF_8);
    Map<String, String> out = new HashMap<>();
    for (String part : body.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.merge(
            FleetServer.decode(part.substring(0, eq)),
            FleetServer.decode(part.substring(eq + 1)),
            (a, b) -> a + "," + b);
      }
    }
    return out;
  }

  private String render(String template, Object scope) {
    Mustache m = templates.compile(template);
    StringWriter w = new StringWriter();
    m.execute(w, scope);
    return w.toString();
  }

  private static void asset(HttpExchange ex, String[] resource) throws IOException {
    try (InputStream in = FleetPage.class.getClassLoader().getResourceAsStream(resource[0])) {
      if (in == null) {
        throw new IOException("missing resource " + resource[0]);
      }
      FleetServer.send(ex, 200, in.readAllBytes(), resource[1] + "; charset=utf-8");
    }
  }

  private static void redirect(HttpExchange ex, String to) throws IOException {
    ex.getResponseHeaders().set("Location", to);
    ex.sendResponseHeaders(303, -1);
  }

  static void html(HttpExchange ex, int status, String body) throws IOException {
    ex.getResponseHeaders()
        .set(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
                + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none';"
                + " form-action 'self'; base-uri 'none'");
    ex.getResponseHeaders().set("X-Frame-Options", "DENY");
    ex.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    FleetServer.send(ex, status, body.getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
  }
}

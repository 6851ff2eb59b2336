package dev.sebridge.fleet.web;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import dev.sebridge.fleet.api.ApiException;
import dev.sebridge.fleet.api.ApiInput;
import dev.sebridge.fleet.api.ApprovalRequests;
import dev.sebridge.fleet.api.FleetServer;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.api.HttpCall;
import dev.sebridge.fleet.api.HttpLimits;
import dev.sebridge.fleet.api.RateLimits;
import dev.sebridge.fleet.api.RolloutRequests;
import dev.sebridge.fleet.api.Route;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The web page (docs/fleet.md, "The page"): server-rendered HTML with htmx from a webjar, kept live
 * by {@link LiveStream}. Reads go through {@link PageModel}; actions through the same {@link
 * ApprovalRequests} and {@link RolloutRequests} as the API, so the page can do nothing the API
 * would refuse. Signed in with the API's tokens ({@link WebSession}); approvers alone see and may
 * use the action forms, and every action needs a reason and the CSRF header.
 */
public final class FleetPage implements Route {
  private static final Pattern VM = Pattern.compile("/ui/vms/([^/]+)");
  private static final Pattern CAMPAIGN =
      Pattern.compile("/ui/campaigns/([^/]+)/page/([1-9][0-9]{0,5})");
  private static final Pattern CAMPAIGN_POST = Pattern.compile("/ui/campaigns/([^/]+)/rollout");
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
  private final RolloutRows rolloutRows;
  private final CampaignRows campaigns;
  private final PageSections sections;
  private final PageActions actions;
  private final LiveStream live;
  private final RateLimits writes;
  private final SignIn signIn;
  private final MustacheFactory templates = new DefaultMustacheFactory("dev/sebridge/fleet/web");

  /**
   * @param writes the API's write limits (one budget per principal for the API and the page)
   * @param tallies the silent agents, kept as the views change
   * @param coverage the inventory's counts; null without an inventory
   */
  public FleetPage(
      Authenticator auth,
      FleetViews views,
      ApprovalRequests approvals,
      RolloutRequests rollouts,
      LiveStream live,
      HttpLimits limits,
      RateLimits writes,
      dev.sebridge.fleet.ViewTallies tallies,
      dev.sebridge.fleet.inventory.Coverage coverage,
      java.util.function.Supplier<java.time.Instant> inventoryRefreshedAt) {
    this.session = new WebSession(auth, limits.secureCookie());
    this.writes = writes;
    this.signIn = new SignIn(session, limits, this::render);
    this.model = new PageModel(views, tallies, coverage);
    this.campaigns = new CampaignRows(views, model);
    this.rolloutRows = new RolloutRows(views);
    this.actions = new PageActions(views, model, rolloutRows, approvals, rollouts);
    this.live = live;
    this.sections =
        new PageSections(
            live,
            campaigns,
            rolloutRows,
            model,
            new CoverageSection(views, coverage, inventoryRefreshedAt),
            this::render);
  }

  /**
   * Before the body of a page request is read: a sign-in from an address past its sign-ins a minute
   * (429) or without the form's token (403); any other action without a session (401), without the
   * CSRF header (403), from a reader (403), or over the principal's write rate (429). A body
   * outside {@code /ui/} is not the page's.
   */
  @Override
  public Route.Admission admit(HttpCall ex, String path, Optional<Principal> principal) {
    if (!path.startsWith("/ui/")) {
      return Route.Admission.NOT_MINE;
    }
    if (path.equals(FleetServer.SIGN_IN)) {
      return signIn.admit(ex);
    }
    Optional<WebSession.Signed> signed = WebSession.signedIn(ex, principal);
    if (signed.isEmpty()) {
      WebSession.forget(ex);
      return refused(ex, 401, "Sign in again: no valid token.");
    }
    if (!WebSession.sameSite(ex, signed.get())) {
      return refused(ex, 403, "Refused: no valid CSRF token.");
    }
    Principal p = signed.get().principal();
    if (path.equals("/ui/logout")) {
      return Route.Admission.ADMITTED;
    }
    if (!p.role().mayApprove()) {
      return refused(ex, 403, p.name() + " may read, not approve");
    }
    if (!writes.take(p.id())) {
      ex.header("Retry-After", "60");
      return refused(ex, 429, p.name() + " sent more writes this minute than allowed");
    }
    return Route.Admission.ADMITTED;
  }

  /** The page's paths get the page's message, not the API's JSON (htmx swaps it in). */
  @Override
  public boolean answersError(HttpCall ex, String path, ApiException error) {
    if (!path.equals("/") && !path.equals("/ui") && !path.startsWith("/ui/")) {
      return false;
    }
    html(ex, error.status(), render("message.mustache", Map.of("error", error.getMessage())));
    return true;
  }

  private Route.Admission refused(HttpCall ex, int status, String error) {
    html(ex, status, render("message.mustache", Map.of("error", error)));
    return Route.Admission.REFUSED;
  }

  @Override
  public boolean handle(HttpCall ex, String path, Optional<Principal> principal)
      throws IOException {
    String method = ex.method();
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
    if (path.equals(FleetServer.SIGN_IN)) {
      signIn.answer(ex, method);
      return true;
    }
    Optional<WebSession.Signed> signed = WebSession.signedIn(ex, principal);
    if (signed.isEmpty()) {
      WebSession.forget(ex);
      if (method.equals("GET") && (path.equals("/ui/") || path.equals("/ui"))) {
        redirect(ex, FleetServer.SIGN_IN);
      } else {
        html(
            ex, 401, render("message.mustache", Map.of("error", "Sign in again: no valid token.")));
      }
      return true;
    }
    WebSession.Signed s = signed.get(); // a write also passed {@link #refuse}
    try {
      route(ex, path, method, s);
    } catch (ApiException e) {
      html(ex, e.status(), render("message.mustache", Map.of("error", e.getMessage())));
    }
    return true;
  }

  private void route(HttpCall ex, String path, String method, WebSession.Signed s)
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
      ex.addHeader("Set-Cookie", WebSession.clearCookie());
      ex.header("HX-Redirect", FleetServer.SIGN_IN);
      html(ex, 200, "");
    } else if (path.equals("/ui/stream") && ex.rawMethod().equals("GET")) {
      live.serve(ex, s.principal().id(), s.principal().expiresAt());
    } else if (path.startsWith("/ui/fragment/") && method.equals("GET")) {
      String name = path.substring("/ui/fragment/".length());
      if (sections.caughtUp(name, ex.headers(PageSections.VIEWS_HEADER))) {
        html(ex, 200, sections.fragment(name, ex.rawQuery(), p.role().mayApprove()));
      } else {
        // The page keeps what it shows and asks again (app.js), maybe of another instance.
        ex.header("Retry-After", "1");
        ex.header(PageSections.BEHIND_HEADER, "true");
        html(ex, 503, render("message.mustache", Map.of("error", PageSections.BEHIND)));
      }
    } else if ((m = VM.matcher(path)).matches() && method.equals("GET")) {
      html(ex, 200, render("vm.mustache", model.vm(actions.vm(ApiInput.segment(m.group(1))))));
    } else if ((m = CAMPAIGN.matcher(path)).matches() && method.equals("GET")) {
      Map<String, Object> page =
          campaigns.page(
              ApiInput.segment(m.group(1)), Integer.parseInt(m.group(2)), p.role().mayApprove());
      page.put("approver", p.role().mayApprove());
      html(ex, 200, render("campaign.mustache", page));
    } else if ((m = EVENT_ACTIONS.matcher(path)).matches() && method.equals("GET")) {
      html(
          ex,
          200,
          render("event-actions.mustache", actions.eventForms(ApiInput.segment(m.group(1)), p)));
    } else if ((m = ROLLOUT_ACTIONS.matcher(path)).matches() && method.equals("GET")) {
      html(
          ex,
          200,
          render(
              "rollout-actions.mustache", actions.rolloutForms(ApiInput.segment(m.group(1)), p)));
    } else if ((m = EVENT_POST.matcher(path)).matches() && method.equals("POST")) {
      String done =
          actions.onEvent(
              ApiInput.segment(m.group(1)),
              m.group(2),
              m.group(2).equals("approve")
                  ? form(ex, PageActions.APPROVE_FIELDS, Set.of())
                  : form(ex, PageActions.ROLLOUT_FIELDS, PageActions.LISTS),
              p);
      html(ex, 200, render("message.mustache", Map.of("text", done)));
    } else if ((m = CAMPAIGN_POST.matcher(path)).matches() && method.equals("POST")) {
      String done =
          actions.onCampaign(
              ApiInput.segment(m.group(1)),
              form(ex, PageActions.CAMPAIGN_FIELDS, PageActions.LISTS),
              p);
      html(ex, 200, render("message.mustache", Map.of("text", done)));
    } else if ((m = ROLLOUT_POST.matcher(path)).matches() && method.equals("POST")) {
      String done =
          actions.onRollout(
              ApiInput.segment(m.group(1)),
              m.group(2),
              form(ex, PageActions.ACTION_FIELDS, Set.of()),
              p);
      html(ex, 200, render("message.mustache", Map.of("text", done)));
    } else {
      throw new ApiException(404, "no such page: " + method + " " + path);
    }
  }

  /**
   * A form's fields (application/x-www-form-urlencoded), as its route takes them: a field the route
   * does not take, or one given twice that is not a list ({@code repeatable}, joined with commas),
   * is a 400 and nothing happens. Before, both were taken quietly: {@code vms=vm-1} on an event's
   * approval was ignored and the approval went to every Scheduled VM, and {@code reason=a&reason=b}
   * was recorded as "a,b".
   */
  static Map<String, String> form(HttpCall ex, Set<String> fields, Set<String> repeatable)
      throws IOException {
    String body = new String(ex.body(), StandardCharsets.UTF_8);
    Map<String, String> out = new HashMap<>();
    for (String part : body.split("&")) {
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      String name = ApiInput.decode(eq < 0 ? part : part.substring(0, eq));
      String value = eq < 0 ? "" : ApiInput.decode(part.substring(eq + 1));
      if (!fields.contains(name)) {
        throw new ApiException(400, "the form has no field " + name);
      }
      if (out.containsKey(name) && !repeatable.contains(name)) {
        throw new ApiException(400, "the form gives " + name + " more than once");
      }
      out.merge(name, value, (a, b) -> a + "," + b);
    }
    return out;
  }

  private String render(String template, Object scope) {
    Mustache m = templates.compile(template);
    StringWriter w = new StringWriter();
    m.execute(w, scope);
    return w.toString();
  }

  private static void asset(HttpCall ex, String[] resource) throws IOException {
    try (InputStream in = FleetPage.class.getClassLoader().getResourceAsStream(resource[0])) {
      if (in == null) {
        throw new IOException("missing resource " + resource[0]);
      }
      ex.send(200, in.readAllBytes(), resource[1] + "; charset=utf-8");
    }
  }

  private static void redirect(HttpCall ex, String to) {
    ex.redirect(to);
  }

  static void html(HttpCall ex, int status, String body) {
    ex.header(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none';"
            + " form-action 'self'; base-uri 'none'");
    ex.header("X-Frame-Options", "DENY");
    ex.header("Referrer-Policy", "no-referrer");
    ex.send(status, body.getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
  }
}

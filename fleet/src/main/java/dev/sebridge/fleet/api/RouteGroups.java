package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.auth.Principal;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FleetServer}'s groups of routes, tried in the order added: which admits a request's body,
 * which answers it (and what a failure of the route becomes: 503 when the views are not available,
 * 500 for a fault nobody expected, never no answer), and in which form an error is answered (the
 * page's HTML fragment on its paths, else the API's JSON).
 */
final class RouteGroups {
  // (logged as the server's, as before these were a class of their own)
  private static final Logger LOG = LoggerFactory.getLogger(FleetServer.class);

  private final List<Route> routes = new CopyOnWriteArrayList<>();

  void add(Route r) {
    routes.add(r);
  }

  /** The first group's admission of a body that is not {@code NOT_MINE}, else {@code NOT_MINE}. */
  Route.Admission admit(HttpCall call, String path, Optional<Principal> principal)
      throws IOException {
    for (Route r : routes) {
      Route.Admission a = r.admit(call, path, principal);
      if (a != Route.Admission.NOT_MINE) {
        return a;
      }
    }
    return Route.Admission.NOT_MINE;
  }

  /** Answers a request (on a pool thread): the first group that takes it, or 401/404/405. */
  void answer(HttpCall call, String path, Optional<Principal> principal) {
    try {
      for (Route r : routes) {
        if (r.handle(call, path, principal)) {
          return;
        }
      }
      boolean api = FleetServer.api(path);
      if (api && principal.isEmpty()) {
        bearer(call, principal);
      }
      throw api
          ? ApiInput.noRoute(call, path)
          : new ApiException(404, "no such route: " + call.method() + " " + path);
    } catch (ApiException e) {
      error(call, e);
    } catch (IOException e) {
      LOG.debug("the client of {} {} went away: {}", call.rawMethod(), path, e.toString());
    } catch (org.apache.kafka.streams.errors.UnknownStateStoreException e) {
      // A view the topology does not have: a wiring fault that waiting will not mend.
      LOG.error("answering {} {} failed", call.rawMethod(), path, e);
      error(call, new ApiException(500, "internal error"));
    } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
      // The streams are not running (stopping, or stopped on an error: /readyz says so, and the
      // state change is logged), or a global store closed under a read. Nothing was done; another
      // instance, or this one restarted, answers.
      LOG.debug("{} {}: the views are not available: {}", call.rawMethod(), path, e.toString());
      call.header("Retry-After", "1");
      error(
          call,
          new ApiException(
              503, "the views are not available (the service stopping or restarting); try again"));
    } catch (RuntimeException e) {
      LOG.error("answering {} {} failed", call.rawMethod(), path, e);
      error(call, new ApiException(500, "internal error"));
    } finally {
      if (!call.answered()) {
        LOG.error("{} {} was not answered", call.rawMethod(), path);
        error(call, new ApiException(500, "internal error"));
      }
    }
  }

  /** The bearer's principal, or 401. */
  static Principal bearer(HttpCall call, Optional<Principal> principal) {
    if (principal.isEmpty()) {
      call.header("WWW-Authenticate", "Bearer realm=\"sebridge-fleet\"");
      throw new ApiException(401, "a valid bearer token is required");
    }
    return principal.get();
  }

  /**
   * Answers an error: in the form of the group whose path it is (the page's HTML fragment, which
   * the page swaps in as any of its messages), else the API's JSON.
   */
  void error(HttpCall call, ApiException e) {
    if (call.answered()) {
      return;
    }
    for (Route r : routes) {
      try {
        if (r.answersError(call, call.rawPath(), e)) {
          return;
        }
      } catch (IllegalStateException answered) {
        return; // answered meanwhile (a timeout's answer), as the JSON answer below takes it
      } catch (RuntimeException failed) {
        LOG.error("answering {} {} with {} failed", call.rawMethod(), call.rawPath(), e, failed);
        break;
      }
    }
    ObjectNode error = FleetServer.error(e.getMessage());
    e.fields().forEach(error::put);
    try {
      call.json(e.status(), error);
    } catch (IOException | IllegalStateException ignored) {
      // answered meanwhile, or the client went away
    }
  }
}

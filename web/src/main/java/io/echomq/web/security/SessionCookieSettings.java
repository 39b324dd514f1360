package io.echomq.web.security;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.SessionCookieConfig;
import jakarta.servlet.annotation.WebListener;

/**
 * The console's session cookie is {@code HttpOnly} and {@code SameSite=Lax}: not sent with
 * another site's subrequests and forms, yet sent on the top-level return from the identity
 * provider (which Strict would drop). Set through the Servlet 6 API as the application starts,
 * not in web.xml, whose {@code <cookie-config><attribute>} WildFly 35 refuses to parse. Payara
 * ignores the attribute: {@code WEB-INF/glassfish-web.xml} asks it in Payara's own words.
 */
@WebListener
public class SessionCookieSettings implements ServletContextListener {

    static final String SAME_SITE = "Lax";

    @Override
    public void contextInitialized(ServletContextEvent started) {
        SessionCookieConfig cookie = started.getServletContext().getSessionCookieConfig();
        cookie.setHttpOnly(true);
        cookie.setAttribute("SameSite", SAME_SITE);
    }
}

/**
 * MicroProfile Health: the deployment is live while the engine runs, and ready while Valkey and
 * PostgreSQL answer.
 *
 * <p>Must not: change anything.
 */
package io.echomq.web.health;

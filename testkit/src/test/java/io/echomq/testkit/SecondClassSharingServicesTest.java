package io.echomq.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One of two identical classes: whichever runs second checks that it got the first one's servers. */
@ExtendWith(RealServices.class)
class SecondClassSharingServicesTest {

    private static ValkeyService valkeyInBeforeAll;

    @BeforeAll
    static void lifecycleMethodsGetServicesToo(ValkeyService valkey) {
        valkeyInBeforeAll = valkey;
    }

    @Test
    void servicesAreSharedAcrossTestClasses(ValkeyService valkey, PostgresService postgres) {
        assertThat(valkey).isSameAs(valkeyInBeforeAll);
        ServicesSeen.VALKEY.add(valkey);
        ServicesSeen.POSTGRES.add(postgres);

        assertThat(ServicesSeen.VALKEY).allSatisfy(seen -> {
            assertThat(seen).isSameAs(valkey);
            assertThat(seen.port()).isEqualTo(valkey.port());
        });
        assertThat(ServicesSeen.POSTGRES).allSatisfy(seen -> {
            assertThat(seen).isSameAs(postgres);
            assertThat(seen.jdbcUrl()).isEqualTo(postgres.jdbcUrl());
        });
    }
}

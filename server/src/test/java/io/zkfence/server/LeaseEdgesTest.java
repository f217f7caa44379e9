package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a lockToken proves and what a finished request answers: a token this service did not
 * issue for that lock and owner is refused 403 on renew and release; a lease that ended is 409 on
 * renew and 200 (wasHeld false) on release; a request's later copies get its original refusal, or
 * 409 REQUEST_FINISHED once its grant has ended.
 */
class LeaseEdgesTest extends TwoReplicasTestBase {

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    @Test
    void aForgedLockTokenIsRefusedAsNotTheOwnersOnRenewAndRelease() {
        Reply grant = a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null));
        String token = grant.body().get("lockToken").asText();
        String forged = token.substring(0, token.lastIndexOf('.') + 1) + "AAAAAAAAAAAAAAAAAAAAAA";

        // The last one has the shape of a previous protocol's token (32 hex digits): looked for in
        // the queue, found in no entry, it proves nothing either.
        for (String bad : new String[] {forged, "not-a-token", "1.2.3.4", "0123456789abcdef0123456789abcdef"}) {
            Reply renew =
                    b.post(key, "renew", "{\"ownerId\":\"pod-1\",\"lockToken\":\"" + bad + "\",\"ttlMillis\":1000}");
            assertThat(renew.status()).as(bad).isEqualTo(403);
            assertThat(renew.body().get("error").asText()).isEqualTo("NOT_LOCK_OWNER");
            Reply release = b.post(key, "release", "{\"ownerId\":\"pod-1\",\"lockToken\":\"" + bad + "\"}");
            assertThat(release.status()).as(bad).isEqualTo(403);
            assertThat(release.body().get("detail").asText()).doesNotContain(token);
        }
        assertThat(a.get(key).body().get("ownerId").asText())
                .as("the lease is untouched")
                .isEqualTo("pod-1");
    }

    @Test
    void aLockTokenPresentedByAnotherOwnerOrForAnotherLockIsRefused() {
        Reply grant = a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null));
        String token = grant.body().get("lockToken").asText();

        Reply otherOwner = b.post(key, "release", "{\"ownerId\":\"pod-2\",\"lockToken\":\"" + token + "\"}");
        Reply otherLock = b.post(key + "-x", "release", "{\"ownerId\":\"pod-1\",\"lockToken\":\"" + token + "\"}");

        assertThat(otherOwner.status()).isEqualTo(403);
        assertThat(otherLock.status()).isEqualTo(403);
        assertThat(a.get(key).body().get("ownerId").asText()).isEqualTo("pod-1");
    }

    @Test
    void aLeaseThatEndedIsExpiredForRenewAndAlreadyReleasedForRelease() {
        Reply grant = a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null));
        assertThat(b.post(key, "release", ServiceHttp.token(grant))
                        .body()
                        .get("wasHeld")
                        .asBoolean())
                .isTrue();

        Reply renew = a.post(key, "renew", ServiceHttp.renew(grant, 1_000));
        Reply again = a.post(key, "release", ServiceHttp.token(grant));

        assertThat(renew.status()).isEqualTo(409);
        assertThat(renew.body().get("error").asText()).isEqualTo("LOCK_EXPIRED");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("wasHeld").asBoolean()).isFalse();
    }

    @Test
    void aRenewAnswersHowLongTheRenewedLeaseLasts() {
        Reply grant = a.post(key, "acquire", ServiceHttp.acquireWaiting("pod-1", 60_000, 1_000, null));

        Reply renew = b.post(key, "renew", ServiceHttp.renew(grant, 45_000));

        assertThat(renew.status()).isEqualTo(200);
        assertThat(renew.body().get("validForMillis").asLong()).isPositive();
        assertThat(renew.body().get("expiresAt").asLong()).isGreaterThan(System.currentTimeMillis() + 30_000);
    }

    @Test
    void aReleasedRequestSentAgainIsFinishedNeverGrantedAgain() {
        String request = ServiceHttp.acquire("pod-1", 60_000, "R-" + UUID.randomUUID());
        Reply grant = a.post(key, "acquire", request);
        assertThat(a.post(key, "release", ServiceHttp.token(grant)).status()).isEqualTo(200);

        Reply late = b.post(key, "acquire", request);

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.body().get("error").asText()).isEqualTo("REQUEST_FINISHED");
        assertThat(late.body().get("outcome").asText()).isEqualTo("RELEASED");
        assertThat(a.get(key).status()).as("nothing was queued").isEqualTo(404);
    }

    @Test
    void aForceReleasedRequestSentAgainIsFinished() {
        String request = ServiceHttp.acquire("pod-1", 60_000, "R-" + UUID.randomUUID());
        assertThat(a.post(key, "acquire", request).status()).isEqualTo(200);
        assertThat(a.post(key, "force-release", "{\"reason\":\"test\"}").status())
                .isEqualTo(200);

        Reply late = b.post(key, "acquire", request);

        assertThat(late.body().get("error").asText()).isEqualTo("REQUEST_FINISHED");
        assertThat(late.body().get("outcome").asText()).isEqualTo("FORCE_RELEASED");
    }

    @Test
    void aRefusedRequestSentAgainIsRefusedAgainEvenOnceTheLockIsFree() {
        Reply holder = a.post(key, "acquire", ServiceHttp.acquire("holder", 60_000, null));
        String request = ServiceHttp.acquireWaiting("late", 60_000, 200, "R-" + UUID.randomUUID());
        Reply refused = b.post(key, "acquire", request);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(a.post(key, "release", ServiceHttp.token(holder)).status()).isEqualTo(200);

        Reply again = a.post(key, "acquire", request);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.body().get("error").asText()).isEqualTo("LOCK_ALREADY_HELD");
        assertThat(a.get(key).status()).as("the late copy left no lease").isEqualTo(404);
    }
}

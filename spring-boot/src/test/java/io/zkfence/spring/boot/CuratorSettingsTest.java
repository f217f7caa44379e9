package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/** TLS settings reach ZooKeeper's client configuration (no TLS server is packaged here to connect to). */
class CuratorSettingsTest {

    @Test
    void tlsPropertiesBecomeZooKeepersSecureNettyClientSettings() {
        ZkfenceProperties.Tls tls = new ZkfenceProperties.Tls();
        tls.setEnabled(true);
        tls.setTrustStoreLocation("/etc/zk/truststore.p12");
        tls.setTrustStorePassword("changeit");
        tls.setKeyStoreLocation("/etc/zk/client.p12");
        tls.setKeyStoreType("PKCS12");
        tls.setHostnameVerification(false);

        ZKClientConfig c = CuratorSettings.clientConfig(tls);

        try (ClientX509Util x509 = new ClientX509Util()) {
            assertThat(c.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
            assertThat(c.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET))
                    .isEqualTo(ClientCnxnSocketNetty.class.getName());
            assertThat(c.getProperty(x509.getSslTruststoreLocationProperty())).isEqualTo("/etc/zk/truststore.p12");
            assertThat(c.getProperty(x509.getSslTruststorePasswdProperty())).isEqualTo("changeit");
            assertThat(c.getProperty(x509.getSslKeystoreLocationProperty())).isEqualTo("/etc/zk/client.p12");
            assertThat(c.getProperty(x509.getSslKeystoreTypeProperty())).isEqualTo("PKCS12");
            assertThat(c.getProperty(x509.getSslHostnameVerificationEnabledProperty()))
                    .isEqualTo("false");
        }
    }

    @Test
    void withoutTlsTheClientStaysPlain() {
        ZKClientConfig c = CuratorSettings.clientConfig(new ZkfenceProperties.Tls());
        assertThat(c.getBoolean(ZKClientConfig.SECURE_CLIENT)).isFalse();
    }

    @Test
    void tlsWithoutATrustStoreIsRejectedNamingTheProperty() {
        ZkfenceProperties.Tls tls = new ZkfenceProperties.Tls();
        tls.setEnabled(true);
        InvalidConfigurationPropertyValueException e =
                assertThrows(InvalidConfigurationPropertyValueException.class, () -> CuratorSettings.clientConfig(tls));
        assertThat(e.getName()).isEqualTo("zkfence.tls.trust-store-location");
    }
}

package io.zkfence.s3;

import java.net.URI;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Real AWS SDK v2 clients for the test servers: path-style, a dummy region and credentials. */
final class TestClients {

    private TestClients() {}

    static S3Client s3(URI endpoint, ExecutionInterceptor... interceptors) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> c.executionInterceptors(List.of(interceptors)))
                .build();
    }
}

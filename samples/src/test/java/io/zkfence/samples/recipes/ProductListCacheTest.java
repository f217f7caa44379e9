package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class ProductListCacheTest extends RecipeSampleTestBase {

    @Test
    void threePodsServingManyRequestsRunTheProductQueryOnce() {
        ProductListCache.createTables(db.dataSource);
        db.execute("insert into product (name) values ('anvil'), ('rope'), ('rocket skates')");
        List<ProductListCache> pods = List.of(
                new ProductListCache(pod("pod-1"), db.dataSource),
                new ProductListCache(pod("pod-2"), db.dataSource),
                new ProductListCache(pod("pod-3"), db.dataSource));
        ExecutorService requests = Executors.newFixedThreadPool(24);
        closeLater(requests::shutdownNow);

        List<CompletableFuture<String>> pages = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            ProductListCache pod = pods.get(i % pods.size());
            pages.add(CompletableFuture.supplyAsync(pod::productList, requests));
        }

        assertThat(pages.stream().map(CompletableFuture::join)).containsOnly("anvil,rocket skates,rope");
        assertThat(pods.stream().mapToInt(ProductListCache::queries).sum()).isEqualTo(1);
        assertThat(db.rows("select cache_key, cache_value from product_cache"))
                .containsExactly("product-list|anvil,rocket skates,rope");
    }
}

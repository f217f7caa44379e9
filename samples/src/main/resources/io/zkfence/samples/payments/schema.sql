create table if not exists shop_order (
    order_id   varchar(64) primary key,
    amount_due bigint      not null,
    amount_paid bigint     not null default 0
);
create table if not exists payment (
    payment_id varchar(64) primary key,
    order_id   varchar(64) not null references shop_order (order_id),
    amount     bigint      not null,
    token      bigint      not null
);
-- an order to pay when the sample runs on an empty database (PostgreSQL syntax)
insert into shop_order (order_id, amount_due) values ('order-1', 4200) on conflict do nothing;

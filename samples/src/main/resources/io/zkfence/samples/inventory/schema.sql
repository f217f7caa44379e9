create table if not exists inventory_stock (
    sku      varchar(64) primary key,
    quantity int         not null check (quantity >= 0)
);
create table if not exists inventory_reservation (
    order_id varchar(64) primary key,
    sku      varchar(64) not null references inventory_stock (sku),
    quantity int         not null,
    token    bigint      not null
);
-- something to reserve when the sample runs on an empty database (PostgreSQL syntax)
insert into inventory_stock (sku, quantity) values ('123', 10) on conflict do nothing;

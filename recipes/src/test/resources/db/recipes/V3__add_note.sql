alter table applied_steps add column note varchar(50);
insert into applied_steps (step, note) values ('V3', 'after V2');
